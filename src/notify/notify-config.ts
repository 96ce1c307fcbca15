/**
 * The notifications file (`KUBEWHY_NOTIFICATIONS_FILE`, YAML or JSON): where diagnoses
 * are sent and which go where. Read once at start; every mistake stops the start with a
 * message that names the file and the field. Credentials (webhook URLs, the bot token,
 * the signing secret) are given as `{ file: PATH }` (a mounted Secret, as the Helm chart
 * does) or `{ env: NAME }`, or inline for a quick try; they are read here and live only
 * inside the channel that uses them, never in a message, a log line or the audit log.
 *
 * ```yaml
 * consoleUrl: https://kubewhy.example.com     # links in messages (KUBEWHY_CONSOLE_URL wins)
 * destinations:
 *   - { name: oncall, type: slack-bot, channel: "#oncall", token: { file: /etc/kubewhy/notify/slack-token } }
 *   - { name: platform, type: teams, url: { env: TEAMS_WEBHOOK_URL } }
 *   - { name: tickets, type: webhook, url: https://tickets.example.com/hook, secret: { file: /etc/kubewhy/notify/hook-secret } }
 * routes:
 *   - { match: { namespaces: [prod, "payments-*"], severities: [critical] }, to: [oncall] }
 *   - { match: { events: [finished] }, to: [tickets] }
 * ```
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { createChannel, type ChannelSettings } from './channels/index.ts';
import type { Channel } from './notice.ts';
import { routeSchema, type Route } from './routing.ts';

export class NotificationsConfigError extends Error {
  override name = 'NotificationsConfigError';
}

const secretReference = z.union([
  z.string().min(1),
  z.strictObject({ file: z.string().min(1).describe('A file holding the value (a mounted Secret key)') }),
  z.strictObject({
    env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .describe('An environment variable holding the value'),
  }),
]);
type SecretReference = z.infer<typeof secretReference>;

const destinationName = z
  .string()
  .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'lower-case letters, digits and -, as a Kubernetes name');
const timeoutSeconds = z.number().int().min(1).max(120).optional();

const destinationSchema = z.discriminatedUnion('type', [
  z.strictObject({ name: destinationName, type: z.literal('slack-webhook'), url: secretReference, timeoutSeconds }),
  z.strictObject({
    name: destinationName,
    type: z.literal('slack-bot'),
    token: secretReference,
    channel: z.string().min(1),
    apiUrl: z.url().optional(),
    timeoutSeconds,
  }),
  z.strictObject({ name: destinationName, type: z.literal('teams'), url: secretReference, timeoutSeconds }),
  z.strictObject({
    name: destinationName,
    type: z.literal('webhook'),
    url: secretReference,
    secret: secretReference,
    timeoutSeconds,
  }),
]);

const deliverySchema = z
  .strictObject({
    /**
     * The first retry's wait; it doubles per failed attempt up to `backoffMaxSeconds`, unless
     * the receiver says Retry-After. At least a second: a signed webhook's retry within the
     * same second would carry the same signature, which a receiver rightly refuses as a replay.
     */
    backoffSeconds: z.number().min(1).max(3600).default(5),
    backoffMaxSeconds: z.number().min(1).max(86_400).default(300),
    /** A message not delivered this long after it was queued is given up (counted, logged, kept as failed). */
    maxAgeHours: z
      .number()
      .positive()
      .max(24 * 30)
      .default(24),
  })
  .default({ backoffSeconds: 5, backoffMaxSeconds: 300, maxAgeHours: 24 })
  .refine((delivery) => delivery.backoffMaxSeconds >= delivery.backoffSeconds, {
    message: 'backoffMaxSeconds must be at least backoffSeconds',
    path: ['backoffMaxSeconds'],
  });

const fileSchema = z.strictObject({
  consoleUrl: z.url().optional(),
  delivery: deliverySchema,
  destinations: z.array(destinationSchema).min(1),
  routes: z.array(routeSchema).min(1),
});

export interface DeliverySettings {
  backoffMs: number;
  backoffMaxMs: number;
  maxAgeMs: number;
}

export interface NotificationSettings {
  consoleUrl?: string;
  channels: Channel[];
  routes: Route[];
  delivery: DeliverySettings;
}

/** Reads and checks the notifications file; `environment` resolves `{ env: NAME }` references. */
export function loadNotifications(
  path: string,
  options: { environment: Readonly<Record<string, string | undefined>>; consoleUrl?: string },
): NotificationSettings {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new NotificationsConfigError(`cannot read the notifications file ${path}: ${(error as Error).message}`);
  }
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new NotificationsConfigError(`${path} is not YAML or JSON: ${(error as Error).message}`);
  }
  const parsed = fileSchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new NotificationsConfigError(`${path}: ${issue.path.join('.') || 'the file'}: ${issue.message}`);
  }
  const file = parsed.data;
  checkNames(path, file.destinations, file.routes);
  const resolve = (reference: SecretReference, field: string): string =>
    resolveSecret(reference, { path, field, environment: options.environment });
  const channels = file.destinations.map((destination, index) =>
    createChannel(
      toChannelSettings(destination, {
        path,
        resolve: (reference, key) => resolve(reference, `destinations.${index}.${key}`),
      }),
    ),
  );
  const consoleUrl = options.consoleUrl ?? file.consoleUrl;
  return {
    ...(consoleUrl ? { consoleUrl: consoleUrl.replace(/\/+$/, '') } : {}),
    channels,
    routes: file.routes,
    delivery: {
      backoffMs: file.delivery.backoffSeconds * 1000,
      backoffMaxMs: file.delivery.backoffMaxSeconds * 1000,
      maxAgeMs: file.delivery.maxAgeHours * 3_600_000,
    },
  };
}

type Destination = z.infer<typeof destinationSchema>;

function toChannelSettings(
  destination: Destination,
  context: { path: string; resolve: (reference: SecretReference, key: string) => string },
): ChannelSettings {
  const { resolve } = context;
  const url = (reference: SecretReference): string =>
    checkedUrl(resolve(reference, 'url'), `${context.path}: destination "${destination.name}"`);
  const timeout = destination.timeoutSeconds !== undefined ? { timeoutMs: destination.timeoutSeconds * 1000 } : {};
  switch (destination.type) {
    case 'slack-webhook':
      return { type: 'slack-webhook', name: destination.name, url: url(destination.url), ...timeout };
    case 'slack-bot':
      return {
        type: 'slack-bot',
        name: destination.name,
        token: resolve(destination.token, 'token'),
        channel: destination.channel,
        ...(destination.apiUrl ? { apiUrl: destination.apiUrl } : {}),
        ...timeout,
      };
    case 'teams':
      return { type: 'teams', name: destination.name, url: url(destination.url), ...timeout };
    case 'webhook':
      return {
        type: 'webhook',
        name: destination.name,
        url: url(destination.url),
        secret: resolve(destination.secret, 'secret'),
        ...timeout,
      };
  }
}

function checkNames(path: string, destinations: readonly Destination[], routes: readonly Route[]): void {
  const names = new Set<string>();
  for (const destination of destinations) {
    if (names.has(destination.name))
      throw new NotificationsConfigError(`${path}: destination "${destination.name}" is defined twice`);
    names.add(destination.name);
  }
  routes.forEach((route, index) => {
    for (const name of route.to) {
      if (!names.has(name))
        throw new NotificationsConfigError(
          `${path}: routes.${index}.to names "${name}", which is not a destination (there are: ${[...names].join(', ')})`,
        );
    }
  });
}

function resolveSecret(
  reference: SecretReference,
  context: { path: string; field: string; environment: Readonly<Record<string, string | undefined>> },
): string {
  if (typeof reference === 'string') return reference;
  if ('env' in reference) {
    const value = context.environment[reference.env]?.trim();
    if (!value)
      throw new NotificationsConfigError(
        `${context.path}: ${context.field} reads the environment variable ${reference.env}, which is not set`,
      );
    return value;
  }
  let value: string;
  try {
    value = readFileSync(reference.file, 'utf8').trim();
  } catch (error) {
    throw new NotificationsConfigError(
      `${context.path}: ${context.field} reads ${reference.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  if (!value)
    throw new NotificationsConfigError(`${context.path}: ${context.field} reads ${reference.file}, which is empty`);
  return value;
}

/** A URL the destination can post to; the message never repeats the URL, which is a credential for Slack and Teams. */
function checkedUrl(value: string, where: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new NotificationsConfigError(`${where}: its url is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new NotificationsConfigError(`${where}: its url must be http or https, not ${url.protocol}`);
  return value;
}
