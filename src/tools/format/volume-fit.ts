/**
 * Why a PersistentVolume will not bind a Pending claim, in the order the binder checks:
 * the class (a claim with `storageClassName: ""` binds only a volume without one), the
 * label selector (each requirement the volume's labels miss, with the value they hold),
 * the size, the access modes, the volume mode, and a volume already claimed by another.
 */
import type { V1LabelSelector, V1PersistentVolume, V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { parseQuantity } from './quantity.ts';

/** Each reason the volume does not fit the claim; none: it fits. */
export function volumeMisfits(claim: V1PersistentVolumeClaim, volume: V1PersistentVolume): string[] {
  const reasons: string[] = [];
  const claimRef = volume.spec?.claimRef;
  if (claimRef?.name && (claimRef.name !== claim.metadata?.name || claimRef.namespace !== claim.metadata?.namespace))
    reasons.push(`claimed by ${claimRef.namespace ?? '?'}/${claimRef.name}`);
  const wantedClass = claim.spec?.storageClassName ?? '';
  const volumeClass = volume.spec?.storageClassName ?? '';
  if (wantedClass !== volumeClass)
    reasons.push(
      `class ${volumeClass ? `"${volumeClass}"` : 'none'}, the claim's is ${wantedClass ? `"${wantedClass}"` : 'none'}`,
    );
  reasons.push(...selectorMisses(claim.spec?.selector, volume.metadata?.labels ?? {}));
  const requested = parseQuantity(String(claim.spec?.resources?.requests?.storage ?? '0'));
  const capacity = parseQuantity(String(volume.spec?.capacity?.storage ?? '0'));
  if (Number.isFinite(requested) && Number.isFinite(capacity) && capacity < requested)
    reasons.push(
      `capacity ${String(volume.spec?.capacity?.storage)}, the claim requests ${String(claim.spec?.resources?.requests?.storage)}`,
    );
  const modes = volume.spec?.accessModes ?? [];
  const missing = (claim.spec?.accessModes ?? []).filter((mode) => !modes.includes(mode));
  if (missing.length) reasons.push(`access modes ${modes.join(',') || 'none'}, the claim needs ${missing.join(',')}`);
  const [wantedMode, volumeMode] = [claim.spec?.volumeMode ?? 'Filesystem', volume.spec?.volumeMode ?? 'Filesystem'];
  if (wantedMode !== volumeMode) reasons.push(`volumeMode ${volumeMode}, the claim's is ${wantedMode}`);
  return reasons;
}

/** The selector's requirements the labels miss: `label pool=tally-jouranl, the claim selects pool=tally-journal`. */
export function selectorMisses(selector: V1LabelSelector | undefined, labels: Record<string, string>): string[] {
  const misses: string[] = [];
  for (const [key, value] of Object.entries(selector?.matchLabels ?? {})) {
    if (labels[key] !== value)
      misses.push(
        labels[key] === undefined
          ? `no label ${key}, the claim selects ${key}=${value}`
          : `label ${key}=${labels[key]}, the claim selects ${key}=${value}`,
      );
  }
  for (const expression of selector?.matchExpressions ?? []) {
    const held = labels[expression.key];
    const values = expression.values ?? [];
    const fits =
      expression.operator === 'In'
        ? held !== undefined && values.includes(held)
        : expression.operator === 'NotIn'
          ? held === undefined || !values.includes(held)
          : expression.operator === 'Exists'
            ? held !== undefined
            : held === undefined;
    if (!fits)
      misses.push(
        `label ${expression.key}${held === undefined ? ' absent' : `=${held}`}, the claim selects ${expression.key} ${expression.operator} (${values.join(',')})`,
      );
  }
  return misses;
}
