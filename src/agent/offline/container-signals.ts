/**
 * Reads a container's waiting reason and message (and kubelet event messages) for the
 * failures Kubernetes names itself: image pulls, missing Secrets and ConfigMaps.
 */
export type ContainerVerdict = 'image-pull' | 'missing-secret' | 'missing-configmap';

const IMAGE_PULL_REASONS = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull', 'RegistryUnavailable']);

export interface MissingReference {
  verdict: 'missing-secret' | 'missing-configmap';
  /** The missing object's name, and the missing key when the object exists but the key does not. */
  name: string;
  key?: string;
  /** Set when the kubelet named only the pod's volume (`for volume "conf"`): `name` is then the volume's. */
  volume?: string;
}

export function isImagePullReason(reason: string | undefined): boolean {
  return reason !== undefined && IMAGE_PULL_REASONS.has(reason);
}

/** `secret "x" not found`, `couldn't find key k in Secret ns/x`, and the ConfigMap equivalents. */
export function readMissingReference(message: string): MissingReference | undefined {
  const objectMissing = /(secret|configmap)s? "([^"]+)" not found/i.exec(message);
  if (objectMissing) return { verdict: verdictFor(objectMissing[1]!), name: objectMissing[2]! };
  const keyMissing = /couldn't find key (\S+) in (Secret|ConfigMap) ([^\s/]+\/)?([^\s/.,]+)/i.exec(message);
  if (keyMissing) return { verdict: verdictFor(keyMissing[2]!), name: keyMissing[4]!, key: keyMissing[1]! };
  // A volume's `items` naming a key the object lacks: `configmap references non-existent config key: default.conf`.
  const volumeKey = /(configmap|secret) references non-existent (?:config |secret )?key: (\S+)/i.exec(message);
  if (volumeKey) {
    const volume = /for volume "([^"]+)"/.exec(message)?.[1];
    return { verdict: verdictFor(volumeKey[1]!), name: volume ?? '', key: volumeKey[2]!, ...(volume ? { volume } : {}) };
  }
  return undefined;
}

function verdictFor(kind: string): MissingReference['verdict'] {
  return kind.toLowerCase() === 'secret' ? 'missing-secret' : 'missing-configmap';
}
