/**
 * Reads a container's waiting reason and message (and kubelet event messages) for the
 * failures Kubernetes names itself: image pulls, missing Secrets and ConfigMaps. The
 * reasons and message forms are tables in signals/container.ts.
 */
import { IMAGE_PULL_REASONS, MISSING_REFERENCE_FORMS, type MissingReference } from './signals/container.ts';

export type { MissingReference } from './signals/container.ts';

export type ContainerVerdict = 'image-pull' | 'missing-secret' | 'missing-configmap';

export function isImagePullReason(reason: string | undefined): boolean {
  return reason !== undefined && IMAGE_PULL_REASONS.some((row) => row.pattern.test(reason));
}

/** `secret "x" not found`, `couldn't find key k in Secret ns/x`, and the ConfigMap equivalents. */
export function readMissingReference(message: string): MissingReference | undefined {
  for (const form of MISSING_REFERENCE_FORMS) {
    const match = form.pattern.exec(message);
    if (match) return form.read(match, message);
  }
  return undefined;
}
