/**
 * Rule `missing-reference`: a container the kubelet cannot create (or a volume it cannot
 * mount) because a Secret or ConfigMap, or a key of one, does not exist.
 */
import type { EventData } from '../../../tools/format/events.ts';
import type { CaseView, Finding } from '../case.ts';
import { readMissingReference, type MissingReference } from '../container-signals.ts';
import { eventLine, stateLine } from '../evidence.ts';
import { containerPlace } from './view.ts';

function findMissingInEvents(events: EventData[]): ReturnType<typeof readMissingReference> {
  for (const event of events) {
    const missing = readMissingReference(event.message);
    if (missing) return missing;
  }
  return undefined;
}

/** The Secret or ConfigMap (or key of one) a waiting container references and cannot find. */
export function missingReferenceOf(view: CaseView): MissingReference | undefined {
  // A pod stuck in ContainerCreating may show no container state at all: the kubelet's FailedMount event names the object.
  const mount = view.pod?.events.find(
    (event) =>
      (event.reason === 'FailedMount' || event.reason === 'FailedAttachVolume') && readMissingReference(event.message),
  );
  if (view.container?.state.state !== 'waiting') return mount ? readMissingReference(mount.message) : undefined;
  const reason = view.waiting?.reason;
  const message =
    reason === 'CreateContainerConfigError' || reason === 'CreateContainerError' ? (view.waiting?.message ?? '') : '';
  return readMissingReference(message) ?? findMissingInEvents(view.pod?.events ?? []);
}

/** The object (and key) the pod references and cannot find, a volume's reference named by the object it mounts. */
export function missingObjectOf(view: CaseView): (MissingReference & { object: 'Secret' | 'ConfigMap' }) | undefined {
  const found = missingReferenceOf(view);
  if (!found) return undefined;
  const missing = {
    ...found,
    object: found.verdict === 'missing-secret' ? ('Secret' as const) : ('ConfigMap' as const),
  };
  if (missing.volume)
    missing.name = view.pod?.spec.volumes.find((volume) => volume.name === missing.volume)?.sourceName ?? missing.name;
  return missing;
}

export function missingReferenceFinding(view: CaseView): Finding {
  const missing = missingObjectOf(view)!;
  const object = missing.object;
  const what = missing.key ? `the key "${missing.key}" of ${object} "${missing.name}"` : `${object} "${missing.name}"`;
  return {
    category: missing.verdict,
    cause: `${what} that the pod references does not exist`,
    evidence: [
      `${view.container ? containerPlace(view) : `pod ${view.pod?.name}`} is waiting: ${view.waiting ? stateLine(view.waiting) : 'not started'}`,
      ...(view.pod?.events ?? [])
        .filter((event) => readMissingReference(event.message))
        .slice(0, 2)
        .map(eventLine),
    ],
    confidence: 'high',
  };
}
