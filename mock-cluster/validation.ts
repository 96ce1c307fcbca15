/**
 * The checks the API server makes before it stores an object, as far as the mock needs
 * them to answer 422 Invalid the way a real cluster would: object names, label values,
 * replica counts, containers with a name and an image.
 */
import type { InvalidCause } from './api-error.ts';
import type { ResourceType } from './resources.ts';
import type { KubeObject } from './types.ts';
import { isRecord, readPath } from './types.ts';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const TEMPLATE_PATHS: Record<string, string> = {
  Pod: 'spec',
  Deployment: 'spec.template.spec',
  ReplicaSet: 'spec.template.spec',
  StatefulSet: 'spec.template.spec',
  DaemonSet: 'spec.template.spec',
  Job: 'spec.template.spec',
  CronJob: 'spec.jobTemplate.spec.template.spec',
};
const SCALABLE = new Set(['Deployment', 'ReplicaSet', 'StatefulSet', 'ReplicationController']);

export function validateName(type: ResourceType, name: string): InvalidCause | undefined {
  if (type.group === 'rbac.authorization.k8s.io') {
    return name === '.' || name === '..' || /[/%]/.test(name)
      ? { field: 'metadata.name', message: `Invalid value: "${name}": may not contain '/' or '%'` }
      : undefined;
  }
  if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
    return {
      field: 'metadata.name',
      message: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    };
  }
  return undefined;
}

export function validateReplicas(replicas: unknown, field: string): InvalidCause | undefined {
  if (replicas === undefined) return undefined;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas))
    return { field, message: `Invalid value: ${JSON.stringify(replicas)}: must be an integer` };
  if (replicas < 0) return { field, message: `Invalid value: ${replicas}: must be greater than or equal to 0` };
  return undefined;
}

export function validateObject(type: ResourceType, object: KubeObject): InvalidCause[] {
  const causes: InvalidCause[] = [];
  const nameCause = validateName(type, object.metadata.name);
  if (nameCause) causes.push(nameCause);
  for (const mapName of ['labels', 'annotations'] as const) {
    for (const [key, value] of Object.entries(object.metadata[mapName] ?? {})) {
      if (typeof value !== 'string')
        causes.push({
          field: `metadata.${mapName}`,
          message: `Invalid value: ${JSON.stringify(value)}: ${key} must be a string`,
        });
    }
  }
  if (SCALABLE.has(object.kind)) {
    const cause = validateReplicas(readPath(object, 'spec.replicas'), 'spec.replicas');
    if (cause) causes.push(cause);
  }
  const templatePath =
    type.group === '' || type.group === 'apps' || type.group === 'batch' ? TEMPLATE_PATHS[object.kind] : undefined;
  if (templatePath) {
    const containers = readPath(object, `${templatePath}.containers`);
    if (!Array.isArray(containers) || containers.length === 0)
      causes.push({ field: `${templatePath}.containers`, message: 'Required value' });
    (Array.isArray(containers) ? containers : []).forEach((container: unknown, index) => {
      if (!isRecord(container) || typeof container['name'] !== 'string' || container['name'] === '')
        causes.push({ field: `${templatePath}.containers[${index}].name`, message: 'Required value' });
      if (!isRecord(container) || typeof container['image'] !== 'string' || container['image'] === '')
        causes.push({ field: `${templatePath}.containers[${index}].image`, message: 'Required value' });
    });
  }
  return causes;
}
