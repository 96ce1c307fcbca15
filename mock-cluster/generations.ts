/**
 * Keeps a Deployment's generation consistent with its rollout history: the API server bumps
 * metadata.generation on every spec change, and every revision is a template change, so a
 * Deployment at revision N has generation ≥ N. A snapshot that says less is raised to its
 * highest revision (its own annotation or its ReplicaSets'); status.observedGeneration moves
 * by the same amount, so a Deployment the controller had caught up with stays caught up and
 * one it had not stays behind by as much.
 */
import type { KubeObject } from './types.ts';
import { isRecord } from './types.ts';

const REVISION = 'deployment.kubernetes.io/revision';

function revisionOf(object: KubeObject): number {
  return Number(object.metadata.annotations?.[REVISION] ?? 0) || 0;
}

/** Raises each Deployment's generation (and observedGeneration) to its highest revision; mutates `objects`. */
export function raiseDeploymentGenerations(objects: KubeObject[]): void {
  const highestByOwner = new Map<string, number>();
  for (const object of objects) {
    if (object.kind !== 'ReplicaSet') continue;
    const owner = object.metadata.ownerReferences?.find(
      (reference) => reference.controller && reference.kind === 'Deployment',
    );
    if (!owner) continue;
    const key = `${object.metadata.namespace ?? ''}/${owner.name}`;
    highestByOwner.set(key, Math.max(highestByOwner.get(key) ?? 0, revisionOf(object)));
  }
  for (const object of objects) {
    if (object.kind !== 'Deployment') continue;
    const revision = Math.max(
      revisionOf(object),
      highestByOwner.get(`${object.metadata.namespace ?? ''}/${object.metadata.name}`) ?? 0,
    );
    const generation = typeof object.metadata.generation === 'number' ? object.metadata.generation : 1;
    const raised = Math.max(generation, revision, 1);
    object.metadata.generation = raised;
    const status = object['status'];
    if (isRecord(status) && typeof status['observedGeneration'] === 'number')
      status['observedGeneration'] = Math.max(0, status['observedGeneration'] + raised - generation);
  }
}
