/**
 * The delivery channels, and `createChannel`, which builds the one a routing file's
 * destination names. Each channel renders a notice for its receiver and makes one
 * delivery attempt per `send`; the outbox owns retries and scheduling.
 */
import type { Channel } from '../notice.ts';
import { createSignedWebhookChannel } from './signed-webhook.ts';
import { createSlackBotChannel, createSlackWebhookChannel } from './slack.ts';
import { createTeamsChannel } from './teams.ts';

export { renderSlackMessage, SLACK_LIMITS, type SlackMessage } from './slack-blocks.ts';
export { renderTeamsMessage, type TeamsMessage } from './teams-card.ts';
export { createSlackBotChannel, createSlackWebhookChannel } from './slack.ts';
export { createTeamsChannel } from './teams.ts';
export {
  createSignedWebhookChannel,
  renderWebhookBody,
  signPayload,
  verifyWebhookSignature,
  type SignatureCheck,
  type WebhookBody,
} from './signed-webhook.ts';
export { describeUrl, parseRetryAfter } from './send-outcome.ts';

/** A destination as the notifications file gives it (credentials already resolved); `timeoutMs` bounds one attempt (default 10 s). */
export type ChannelSettings =
  | { type: 'slack-webhook'; name: string; url: string; timeoutMs?: number }
  | { type: 'slack-bot'; name: string; token: string; channel: string; apiUrl?: string; timeoutMs?: number }
  | { type: 'teams'; name: string; url: string; timeoutMs?: number }
  | { type: 'webhook'; name: string; url: string; secret: string; timeoutMs?: number };

export function createChannel(destination: ChannelSettings): Channel {
  switch (destination.type) {
    case 'slack-webhook':
      return createSlackWebhookChannel(destination);
    case 'slack-bot':
      return createSlackBotChannel(destination);
    case 'teams':
      return createTeamsChannel(destination);
    case 'webhook':
      return createSignedWebhookChannel(destination);
  }
}
