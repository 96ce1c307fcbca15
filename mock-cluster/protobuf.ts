/**
 * Decodes the Kubernetes protobuf encoding of the few objects clients send that way:
 * recent client-go clientsets (helm 4's release storage, kubectl's typed clients) write
 * Secrets, ConfigMaps, DeleteOptions and access control objects (protobuf-access.ts) as
 * `application/vnd.kubernetes.protobuf`. The mock always answers in JSON,
 * which those clients accept. Any other kind in protobuf is refused as unsupported.
 */
import { decodeAccessKind } from './protobuf-access.ts';
import { bytes, integer, ProtobufError, readFields, text, type Field } from './protobuf-fields.ts';
import type { JsonRecord } from './types.ts';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]); // "k8s\0"

export { ProtobufError };

function mapEntries(
  fields: Field[],
  number: number,
  value: (field: Field) => string,
): Record<string, string> | undefined {
  const entries = fields.filter((field) => field.number === number);
  if (entries.length === 0) return undefined;
  const map: Record<string, string> = {};
  for (const entry of entries) {
    const parts = readFields(bytes(entry));
    const key = parts.find((part) => part.number === 1);
    const item = parts.find((part) => part.number === 2);
    map[key ? text(key) : ''] = item ? value(item) : '';
  }
  return map;
}

function decodeTime(buffer: Buffer): string {
  const seconds = readFields(buffer).find((field) => field.number === 1);
  return new Date((seconds ? integer(seconds) : 0) * 1000).toISOString().replace('.000Z', 'Z');
}

function decodeObjectMeta(buffer: Buffer): JsonRecord {
  const fields = readFields(buffer);
  const meta: JsonRecord = {};
  const strings: Record<number, string> = {
    1: 'name',
    2: 'generateName',
    3: 'namespace',
    5: 'uid',
    6: 'resourceVersion',
  };
  for (const field of fields) {
    const name = strings[field.number];
    if (name) meta[name] = text(field);
    else if (field.number === 7) meta['generation'] = integer(field);
    else if (field.number === 8) meta['creationTimestamp'] = decodeTime(bytes(field));
    else if (field.number === 14)
      meta['finalizers'] = [...((meta['finalizers'] as string[] | undefined) ?? []), text(field)];
    else if (field.number === 13) {
      const reference: JsonRecord = {};
      for (const part of readFields(bytes(field))) {
        const key = ({ 1: 'kind', 3: 'name', 4: 'uid', 5: 'apiVersion' } as Record<number, string>)[part.number];
        if (key) reference[key] = text(part);
        else if (part.number === 6) reference['controller'] = integer(part) !== 0;
        else if (part.number === 7) reference['blockOwnerDeletion'] = integer(part) !== 0;
      }
      meta['ownerReferences'] = [...((meta['ownerReferences'] as JsonRecord[] | undefined) ?? []), reference];
    }
  }
  const labels = mapEntries(fields, 11, text);
  const annotations = mapEntries(fields, 12, text);
  if (labels) meta['labels'] = labels;
  if (annotations) meta['annotations'] = annotations;
  for (const key of Object.keys(meta)) if (meta[key] === '') delete meta[key];
  return meta;
}

function decodeKind(kind: string, raw: Buffer): JsonRecord {
  const fields = readFields(raw);
  const metadata = fields.find((field) => field.number === 1);
  const object: JsonRecord = { metadata: metadata ? decodeObjectMeta(bytes(metadata)) : {} };
  const base64 = (field: Field): string => bytes(field).toString('base64');
  switch (kind) {
    case 'Secret': {
      const data = mapEntries(fields, 2, base64);
      const stringData = mapEntries(fields, 4, text);
      const type = fields.find((field) => field.number === 3);
      if (data) object['data'] = data;
      if (stringData) object['stringData'] = stringData;
      if (type) object['type'] = text(type);
      if (fields.some((field) => field.number === 5 && integer(field) !== 0)) object['immutable'] = true;
      return object;
    }
    case 'ConfigMap': {
      const data = mapEntries(fields, 2, text);
      const binaryData = mapEntries(fields, 3, base64);
      if (data) object['data'] = data;
      if (binaryData) object['binaryData'] = binaryData;
      if (fields.some((field) => field.number === 4 && integer(field) !== 0)) object['immutable'] = true;
      return object;
    }
    case 'DeleteOptions': {
      const options: JsonRecord = {};
      for (const field of fields) {
        if (field.number === 1) options['gracePeriodSeconds'] = integer(field);
        else if (field.number === 4) options['propagationPolicy'] = text(field);
        else if (field.number === 5)
          options['dryRun'] = [...((options['dryRun'] as string[] | undefined) ?? []), text(field)];
        else if (field.number === 2) {
          const preconditions: JsonRecord = {};
          for (const part of readFields(bytes(field)))
            preconditions[part.number === 1 ? 'uid' : 'resourceVersion'] = text(part);
          options['preconditions'] = preconditions;
        }
      }
      return options;
    }
    default: {
      const access = decodeAccessKind(kind, fields);
      if (!access)
        throw new ProtobufError(
          `protobuf bodies are supported only for Secret, ConfigMap, DeleteOptions and access control kinds, not ${kind}`,
        );
      return { ...object, ...access };
    }
  }
}

/** A protobuf-encoded request body (the `k8s\0` envelope around runtime.Unknown) as JSON. */
export function decodeProtobufObject(body: Buffer): JsonRecord {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC))
    throw new ProtobufError('missing the k8s protobuf prefix');
  const envelope = readFields(body.subarray(MAGIC.length));
  const typeMeta = envelope.find((field) => field.number === 1);
  const raw = envelope.find((field) => field.number === 2);
  let apiVersion = '';
  let kind = '';
  for (const part of typeMeta ? readFields(bytes(typeMeta)) : []) {
    if (part.number === 1) apiVersion = text(part);
    else if (part.number === 2) kind = text(part);
  }
  const object = decodeKind(kind, raw ? bytes(raw) : Buffer.alloc(0));
  return kind === 'DeleteOptions' ? object : { apiVersion, kind, ...object };
}
