/**
 * The failures the kubelet names itself for a container that cannot start: an image it
 * cannot pull (waiting reasons) and a Secret, ConfigMap or key the pod refers to that
 * does not exist (waiting messages and event messages).
 */
import type { Row } from './types.ts';

export const IMAGE_PULL_REASONS: readonly Row[] = [
  {
    id: 'image-err-image-pull',
    pattern: /^ErrImagePull$/,
    means:
      'The last pull of the image failed: wrong name or tag, no access to the registry, or the registry is unreachable.',
    source: 'kubelet container waiting reason ErrImagePull',
    examples: { match: ['ErrImagePull'], noMatch: ['ErrImageNeverPull', 'CreateContainerConfigError'] },
  },
  {
    id: 'image-pull-back-off',
    pattern: /^ImagePullBackOff$/,
    means: 'Pulls of the image keep failing and the kubelet waits before the next try.',
    source: 'kubelet container waiting reason ImagePullBackOff',
    examples: { match: ['ImagePullBackOff'], noMatch: ['CrashLoopBackOff'] },
  },
  {
    id: 'image-invalid-name',
    pattern: /^InvalidImageName$/,
    means: 'The image reference in the pod spec is not a valid image name.',
    source: 'kubelet container waiting reason InvalidImageName',
    examples: { match: ['InvalidImageName'], noMatch: ['CreateContainerError'] },
  },
  {
    id: 'image-never-pull',
    pattern: /^ErrImageNeverPull$/,
    means: 'imagePullPolicy is Never and the image is not on the node.',
    source: 'kubelet container waiting reason ErrImageNeverPull',
    examples: { match: ['ErrImageNeverPull'], noMatch: ['ErrImagePull'] },
  },
  {
    id: 'image-registry-unavailable',
    pattern: /^RegistryUnavailable$/,
    means: 'The image registry could not be reached.',
    source: 'kubelet container waiting reason RegistryUnavailable',
    examples: { match: ['RegistryUnavailable'], noMatch: ['ContainerCreating'] },
  },
];

export type MissingReferenceVerdict = 'missing-secret' | 'missing-configmap';

export interface MissingReference {
  verdict: MissingReferenceVerdict;
  /** The missing object's name, and the missing key when the object exists but the key does not. */
  name: string;
  key?: string;
  /** Set when the kubelet named only the pod's volume (`for volume "conf"`): `name` is then the volume's. */
  volume?: string;
}

export interface MissingReferenceForm extends Row {
  /** The reference a match names. */
  read(match: RegExpExecArray, message: string): MissingReference;
}

export const MISSING_REFERENCE_FORMS: readonly MissingReferenceForm[] = [
  {
    id: 'missing-object',
    pattern: /(secret|configmap)s? "([^"]+)" not found/i,
    means: 'The pod refers to a Secret or ConfigMap that does not exist in its namespace.',
    source:
      'kubelet: Error: secret "x" not found (CreateContainerConfigError); MountVolume.SetUp failed for volume "v" : configmap "x" not found',
    examples: {
      match: [
        'Error: secret "smtp-credentials" not found',
        'MountVolume.SetUp failed for volume "config" : configmap "ingest-config-v2" not found',
      ],
      noMatch: ['Error: services "smtp" not found'],
    },
    read: (match) => ({ verdict: verdictFor(match[1]!), name: match[2]! }),
  },
  {
    id: 'missing-key',
    pattern: /couldn't find key (\S+) in (Secret|ConfigMap) ([^\s/]+\/)?([^\s/.,]+)/i,
    means: 'The Secret or ConfigMap exists but lacks the key an env var refers to.',
    source: "kubelet: Error: couldn't find key password-old in Secret staging/checkout-db",
    examples: {
      match: ["Error: couldn't find key password-old in Secret staging/checkout-db"],
      noMatch: ["Error: couldn't find key in environment: LOG_LEVEL"],
    },
    read: (match) => ({ verdict: verdictFor(match[2]!), name: match[4]!, key: match[1]! }),
  },
  {
    id: 'missing-volume-key',
    pattern: /(configmap|secret) references non-existent (?:config |secret )?key: (\S+)/i,
    means: "A volume's `items` name a key the Secret or ConfigMap lacks; the kubelet names only the volume.",
    source:
      'kubelet: MountVolume.SetUp failed for volume "conf" : configmap references non-existent config key: default.conf',
    examples: {
      match: [
        'MountVolume.SetUp failed for volume "conf" : configmap references non-existent config key: default.conf',
      ],
      noMatch: ['MountVolume.SetUp succeeded for volume "conf"'],
    },
    read: (match, message) => {
      const volume = /for volume "([^"]+)"/.exec(message)?.[1];
      return { verdict: verdictFor(match[1]!), name: volume ?? '', key: match[2]!, ...(volume ? { volume } : {}) };
    },
  },
];

function verdictFor(kind: string): MissingReferenceVerdict {
  return kind.toLowerCase() === 'secret' ? 'missing-secret' : 'missing-configmap';
}
