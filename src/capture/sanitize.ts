/**
 * Makes captured objects safe to write: what only the API server's bookkeeping needs is
 * dropped (`managedFields`, the `last-applied-configuration` annotation, which repeats a
 * ConfigMap's data or an env list verbatim), then every field passes through the redactor
 * (env values by their name, ConfigMap values by their key, args after a sensitive flag,
 * tokens and passwords in any text). A ConfigMap's `binaryData` keeps its keys, not its bytes.
 */
import { redactValue } from '../redact/redactor.ts';
import type { CapturedObject } from './captured-object.ts';
import { isRecord } from './captured-object.ts';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

export function sanitizeObject(object: CapturedObject): CapturedObject {
  const copy = structuredClone(object);
  delete copy.metadata['managedFields'];
  const annotations = copy.metadata['annotations'];
  if (isRecord(annotations)) {
    delete annotations[LAST_APPLIED];
    if (Object.keys(annotations).length === 0) delete copy.metadata['annotations'];
  }
  if (copy.kind === 'ConfigMap' && isRecord(copy['binaryData'])) {
    copy['binaryData'] = Object.fromEntries(Object.keys(copy['binaryData']).map((key) => [key, '']));
  }
  return redactValue(copy);
}
