/**
 * The Microsoft Teams channel: posts the Adaptive Card message (`renderTeamsMessage`) to a
 * Teams Workflows webhook with `fetch`, once per `send`. A workflow answers 202 when it
 * accepted the message (200 from older connectors); its URL carries a `sig` query that
 * signs the request, so the URL never appears in an outcome, only `describeUrl` of it.
 */
import type { Channel } from '../notice.ts';
import { describeUrl, postForOutcome } from './send-outcome.ts';
import { renderTeamsMessage } from './teams-card.ts';

const DEFAULT_TIMEOUT_MS = 10_000;

export function createTeamsChannel(options: { name: string; url: string; timeoutMs?: number }): Channel {
  const destination = `Teams workflow ${describeUrl(options.url)}`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    kind: 'teams',
    name: options.name,
    threads: false,
    render: renderTeamsMessage,
    send({ body, signal }) {
      // A workflow's error names a code, which is kept, and a message, which is not.
      return postForOutcome({
        url: options.url,
        body: JSON.stringify(body),
        signal,
        timeoutMs,
        destination,
        readDetail: readErrorCode,
      });
    },
  };
}

/** A workflow's error body is `{"error":{"code":"...","message":"..."}}`; only the code is kept. */
function readErrorCode(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown } };
    return typeof parsed.error?.code === 'string' ? parsed.error.code : undefined;
  } catch {
    return undefined;
  }
}
