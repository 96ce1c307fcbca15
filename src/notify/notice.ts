/**
 * What a notification is about, and the seam every channel implements. A notice is built
 * from the run as the API shows it (`RunView`, already redacted), so a channel never sees
 * a Secret's value or a token; the channel's own credentials (a webhook URL, a bot token,
 * a signing secret) stay inside the channel and are never part of a payload it stores.
 *
 * A channel does two things, kept apart so the outbox can store what is to be sent:
 * `render` turns a notice into the JSON body the receiver takes (stored in the outbox,
 * shown in tests and docs), and `send` delivers a stored body once. `send` never throws for
 * what a receiver answers: it returns an outcome the outbox schedules from.
 */
import type { RunView } from '../runs/run-view.ts';

/** Why a notice is sent: the run ended, an action waits for a person, or the run's alerts all resolved. */
export const NOTICE_EVENTS = ['finished', 'approval', 'resolved'] as const;
export type NoticeEvent = (typeof NOTICE_EVENTS)[number];

export interface Notice {
  event: NoticeEvent;
  run: RunView;
  /** The run's page in the console (`<consoleUrl>/runs/<id>`), when a console URL is configured. */
  runUrl?: string;
  /** When the event happened (ISO 8601). */
  at: string;
}

export const CHANNEL_KINDS = ['slack-webhook', 'slack-bot', 'teams', 'webhook'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

/** What one delivery attempt came to. */
export type SendOutcome =
  /** Delivered. `thread` is the receiver's id of the message (Slack's `ts`), for replies to thread under. */
  | { ok: true; thread?: string }
  /**
   * Not delivered. `retryable` false: sending the same body again cannot succeed (a 400, a
   * revoked token, a channel that does not exist). `retryAfterMs`: the receiver said when
   * to come back (429 or 503 with Retry-After). `error` names what went wrong without the
   * URL's or the token's secret parts.
   */
  | { ok: false; retryable: boolean; retryAfterMs?: number; status?: number; error: string };

export interface Channel {
  kind: ChannelKind;
  /** The destination's name from the routing file: metrics and logs say it, never the URL. */
  name: string;
  /** The body to store for this notice. Pure: the same notice renders the same body. */
  render(notice: Notice): unknown;
  /**
   * Delivers a rendered body once. `thread`: the receiver's id of the first message sent
   * for the same run to this destination, when the channel threads (Slack's bot); `deliveryId`
   * is stable across retries of one notification, for receivers that drop repeats.
   */
  send(input: { body: unknown; thread?: string; deliveryId: string; signal: AbortSignal }): Promise<SendOutcome>;
  /** Whether later notices of a run reply under the first (only a Slack bot can: an incoming webhook returns no message id). */
  readonly threads: boolean;
}
