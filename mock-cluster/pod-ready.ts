/** Whether an object (a Pod or a Node) has the condition `Ready` with status `True`. */
import type { KubeObject } from './types.ts';
import { isRecord, readPath } from './types.ts';

export function isPodReady(object: KubeObject | undefined): boolean {
  const conditions = readPath(object, 'status.conditions');
  return (
    Array.isArray(conditions) &&
    conditions.some(
      (condition) => isRecord(condition) && condition['type'] === 'Ready' && condition['status'] === 'True',
    )
  );
}
