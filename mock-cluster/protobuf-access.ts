/**
 * The protobuf bodies of access control: kubectl's typed clients send ServiceAccounts,
 * TokenRequests, RBAC Roles and bindings and the self reviews (`auth can-i`, `auth whoami`)
 * as `application/vnd.kubernetes.protobuf`. Field numbers are those of the Kubernetes
 * `generated.proto` files; fields the mock never reads are skipped.
 */
import { bytes, integer, readFields, text, type Field } from './protobuf-fields.ts';
import type { JsonRecord } from './types.ts';

type Schema = Record<number, [name: string, form: 'string' | 'strings' | 'integer' | 'boolean' | Schema | [Schema]]>;

const POLICY_RULE: Schema = {
  1: ['verbs', 'strings'],
  2: ['apiGroups', 'strings'],
  3: ['resources', 'strings'],
  4: ['resourceNames', 'strings'],
  5: ['nonResourceURLs', 'strings'],
};
const SUBJECT: Schema = {
  1: ['kind', 'string'],
  2: ['apiGroup', 'string'],
  3: ['name', 'string'],
  4: ['namespace', 'string'],
};
const ROLE_REF: Schema = { 1: ['apiGroup', 'string'], 2: ['kind', 'string'], 3: ['name', 'string'] };
const RESOURCE_ATTRIBUTES: Schema = {
  1: ['namespace', 'string'],
  2: ['verb', 'string'],
  3: ['group', 'string'],
  4: ['version', 'string'],
  5: ['resource', 'string'],
  6: ['subresource', 'string'],
  7: ['name', 'string'],
};
const NON_RESOURCE_ATTRIBUTES: Schema = { 1: ['path', 'string'], 2: ['verb', 'string'] };
const OBJECT_REFERENCE: Schema = {
  1: ['kind', 'string'],
  2: ['apiVersion', 'string'],
  3: ['name', 'string'],
  4: ['uid', 'string'],
};

/** Each kind's fields after metadata (field 1). */
const KINDS: Record<string, Schema> = {
  ServiceAccount: { 4: ['automountServiceAccountToken', 'boolean'] },
  TokenRequest: {
    2: [
      'spec',
      { 1: ['audiences', 'strings'], 3: ['boundObjectRef', OBJECT_REFERENCE], 4: ['expirationSeconds', 'integer'] },
    ],
  },
  Role: { 2: ['rules', [POLICY_RULE]] },
  ClusterRole: { 2: ['rules', [POLICY_RULE]] },
  RoleBinding: { 2: ['subjects', [SUBJECT]], 3: ['roleRef', ROLE_REF] },
  ClusterRoleBinding: { 2: ['subjects', [SUBJECT]], 3: ['roleRef', ROLE_REF] },
  SelfSubjectAccessReview: {
    2: [
      'spec',
      { 1: ['resourceAttributes', RESOURCE_ATTRIBUTES], 2: ['nonResourceAttributes', NON_RESOURCE_ATTRIBUTES] },
    ],
  },
  SelfSubjectRulesReview: { 2: ['spec', { 1: ['namespace', 'string'] }] },
  SelfSubjectReview: {},
};

function decodeMessage(fields: Field[], schema: Schema): JsonRecord {
  const message: JsonRecord = {};
  for (const field of fields) {
    const entry = schema[field.number];
    if (!entry) continue;
    const [name, form] = entry;
    if (form === 'string') message[name] = text(field);
    else if (form === 'strings') message[name] = [...((message[name] as string[] | undefined) ?? []), text(field)];
    else if (form === 'integer') message[name] = integer(field);
    else if (form === 'boolean') message[name] = integer(field) !== 0;
    else if (Array.isArray(form))
      message[name] = [
        ...((message[name] as JsonRecord[] | undefined) ?? []),
        decodeMessage(readFields(bytes(field)), form[0]),
      ];
    else message[name] = decodeMessage(readFields(bytes(field)), form);
  }
  return message;
}

/** The fields of `kind` other than metadata, or undefined for a kind this module does not know. */
export function decodeAccessKind(kind: string, fields: Field[]): JsonRecord | undefined {
  const schema = KINDS[kind];
  return schema ? decodeMessage(fields, schema) : undefined;
}
