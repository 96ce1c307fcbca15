/**
 * Real OpenAPI schemas for `kubectl explain`, small enough to build on request: the models
 * of `@kubernetes/client-node` (generated from the Kubernetes OpenAPI document) give each
 * field's name and type (`attributeTypeMap`) and their declaration files keep each field's
 * description. A kind the client does not model (a CRD, an unknown kind) has no schema.
 * Schema names are `io.k8s.api.<version>.<Type>`; kubectl shows the part after the last dot.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as models from '@kubernetes/client-node';
import type { JsonRecord } from './types.ts';

interface Attribute {
  name: string;
  baseName: string;
  type: string;
  format: string;
}

type Model = { attributeTypeMap?: Attribute[] };

const modelsDirectory = join(
  dirname(createRequire(import.meta.url).resolve('@kubernetes/client-node')),
  'gen',
  'models',
);
const descriptionCache = new Map<string, { type?: string; fields: Map<string, string> }>();

function modelOf(name: string): Model | undefined {
  const candidate = (models as Record<string, unknown>)[name];
  return typeof candidate === 'function' && Array.isArray((candidate as Model).attributeTypeMap)
    ? (candidate as Model)
    : undefined;
}

/** The JSDoc descriptions of a model's class and fields, read from its declaration file. */
function descriptionsOf(name: string): { type?: string; fields: Map<string, string> } {
  const cached = descriptionCache.get(name);
  if (cached) return cached;
  const result: { type?: string; fields: Map<string, string> } = { fields: new Map() };
  let text = '';
  try {
    text = readFileSync(join(modelsDirectory, `${name}.d.ts`), 'utf8');
  } catch {
    // No declaration file: the schema goes without descriptions.
  }
  const comment = String.raw`\/\*\*\s*\n((?:\s*\*.*\n)*?)\s*\*\/\s*\n`;
  const clean = (block: string): string =>
    block
      .split('\n')
      .map((line) => line.replace(/^\s*\*\s?/, '').trim())
      .filter(Boolean)
      .join(' ')
      .replace(/\\(['"])/g, '$1');
  const classMatch = new RegExp(`${comment}export declare class ${name}\\b`).exec(text);
  if (classMatch?.[1]) result.type = clean(classMatch[1]);
  for (const match of text.matchAll(new RegExp(`${comment}\\s*'([^']+)'\\??:`, 'g')))
    if (match[1] && match[2]) result.fields.set(match[2], clean(match[1]));
  descriptionCache.set(name, result);
  return result;
}

/** `V1DeploymentSpec` → `io.k8s.api.v1.DeploymentSpec`. */
function schemaName(model: string): string {
  const match = /^(V\d+(?:alpha\d+|beta\d+)?)(.+)$/.exec(model);
  return match?.[1] && match[2] ? `io.k8s.api.${match[1].toLowerCase()}.${match[2]}` : `io.k8s.api.${model}`;
}

function typeSchema(type: string, format: string, reachable: string[]): JsonRecord {
  const array = /^Array<(.+)>$/.exec(type);
  if (array?.[1]) return { type: 'array', items: typeSchema(array[1], '', reachable) };
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map?.[1]) return { type: 'object', additionalProperties: typeSchema(map[1], '', reachable) };
  if (type === 'string') return { type: 'string', ...(format ? { format } : {}) };
  if (type === 'Date') return { type: 'string', format: 'date-time' };
  if (type === 'boolean') return { type: 'boolean' };
  if (type === 'number')
    return format === 'double' ? { type: 'number', format } : { type: 'integer', ...(format ? { format } : {}) };
  if (type === 'IntOrString') return { type: 'string', format: 'int-or-string', 'x-kubernetes-int-or-string': true };
  if (modelOf(type)) {
    reachable.push(type);
    return { allOf: [{ $ref: `#/components/schemas/${schemaName(type)}` }] };
  }
  return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
}

function modelSchema(name: string, model: Model, reachable: string[]): JsonRecord {
  const descriptions = descriptionsOf(name);
  const properties: JsonRecord = {};
  for (const attribute of model.attributeTypeMap ?? []) {
    const description = descriptions.fields.get(attribute.baseName) ?? descriptions.fields.get(attribute.name);
    properties[attribute.baseName] = {
      ...typeSchema(attribute.type, attribute.format, reachable),
      ...(description ? { description } : {}),
    };
  }
  return { type: 'object', ...(descriptions.type ? { description: descriptions.type } : {}), properties };
}

/** The schemas of the given kinds and every type they use, keyed by schema name; kinds without a model are left out. */
export function kindSchemas(kinds: { group: string; version: string; kind: string }[]): JsonRecord {
  const schemas: JsonRecord = {};
  const pending: string[] = [];
  for (const { group, version, kind } of kinds) {
    const name = `${version.charAt(0).toUpperCase()}${version.slice(1)}${kind}`;
    const model = modelOf(name);
    if (!model) continue;
    schemas[schemaName(name)] = {
      ...modelSchema(name, model, pending),
      'x-kubernetes-group-version-kind': [{ group, version, kind }],
    };
  }
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const key = schemaName(next);
    const model = modelOf(next);
    if (key in schemas || !model) continue;
    schemas[key] = modelSchema(next, model, pending);
  }
  return schemas;
}
