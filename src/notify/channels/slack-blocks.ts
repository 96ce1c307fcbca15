/**
 * A notice as a Slack message: Block Kit blocks and the plain `text` Slack shows in
 * notifications and screen readers. Everything the run's people or its cluster wrote is
 * escaped for mrkdwn (`&`, `<`, `>`), so a summary cannot mention `@channel` or forge a
 * link, and every block stays inside Block Kit's limits (`SLACK_LIMITS`), cut with `…`.
 * Pure and deterministic: the same notice renders the same message.
 */
import { formatCulprit } from '../../agent/diagnosis.ts';
import type { RunView } from '../../runs/run-view.ts';
import type { Notice } from '../notice.ts';
import {
  SHOWN_DIFF_LINES,
  SHOWN_EVIDENCE,
  describeActionStatus,
  describeCluster,
  describeHold,
  describeTarget,
  describeTitle,
  listAlertNames,
  listNotFound,
  listShownActions,
  listWaitingActions,
  readEarliestExpiry,
  readNamespace,
  readSeverity,
  truncate,
} from './notice-facts.ts';

/** Block Kit's limits (api.slack.com/reference/block-kit/blocks), and the fallback text's length kept short for notifications. */
export const SLACK_LIMITS = {
  headerText: 150,
  sectionText: 3000,
  fields: 10,
  fieldText: 2000,
  contextElements: 10,
  blocks: 50,
  fallbackText: 3000,
} as const;

export interface SlackMessage {
  /** The plain fallback: what a notification or a screen reader says. */
  text: string;
  blocks: unknown[];
}

type TextObject = { type: 'mrkdwn'; text: string } | { type: 'plain_text'; text: string; emoji: boolean };
type Block =
  | { type: 'header'; text: TextObject }
  | { type: 'section'; text: TextObject }
  | { type: 'section'; fields: TextObject[] }
  | { type: 'context'; elements: TextObject[] };

/** Evidence and action lines are cut to this before they are listed, so one long line cannot crowd out the rest. */
const LINE_LIMIT = 500;
/** Held actions shown one section each in an approval message; more are counted, the console lists them. */
const SHOWN_WAITING_ACTIONS = 10;

export function renderSlackMessage(notice: Notice): SlackMessage {
  const blocks =
    notice.event === 'approval'
      ? renderApproval(notice)
      : notice.event === 'resolved'
        ? renderResolved(notice)
        : renderFinished(notice);
  return { text: renderFallbackText(notice), blocks: fitBlockCount([...blocks, renderFooter(notice)]) };
}

/** Escapes the three characters Slack's mrkdwn reads as markup. */
export function escapeMrkdwn(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function renderFinished(notice: Notice): Block[] {
  const { run } = notice;
  const diagnosis = run.diagnosis;
  if (!diagnosis) {
    const why = run.reason ? escapeMrkdwn(run.reason) : 'no reason was recorded';
    return [header(describeTitle(notice)), renderFacts(run), section(`*kubewhy could not diagnose this run.* ${why}`)];
  }
  const blocks: Block[] = [header(describeTitle(notice)), renderFacts(run), section(escapeMrkdwn(diagnosis.summary))];
  const evidence = diagnosis.evidence
    .slice(0, SHOWN_EVIDENCE)
    .map((line) => `• ${escapeMrkdwn(truncate(line.trim(), LINE_LIMIT))}`);
  const more = diagnosis.evidence.length - SHOWN_EVIDENCE;
  if (evidence.length > 0)
    blocks.push(section(`*Evidence*\n${evidence.join('\n')}${more > 0 ? `\n_and ${more} more in the console_` : ''}`));
  const actions = listShownActions(run).map(
    (action) => `• ${renderActionLine(action)} — ${escapeMrkdwn(describeActionStatus(action))}`,
  );
  if (actions.length > 0) blocks.push(section(`*Actions*\n${actions.join('\n')}`));
  const notFound = listNotFound(run).map((missing) => `• ${escapeMrkdwn(missing)}`);
  if (notFound.length > 0) blocks.push(section(`*Not found in the cluster*\n${notFound.join('\n')}`));
  return blocks;
}

function renderApproval(notice: Notice): Block[] {
  const { run } = notice;
  const waiting = listWaitingActions(run);
  const blocks: Block[] = [header(describeTitle(notice)), section(escapeMrkdwn(describeHold(run)))];
  for (const action of waiting.slice(0, SHOWN_WAITING_ACTIONS))
    blocks.push(section(renderWaitingAction(action, notice.runUrl)));
  const more = waiting.length - SHOWN_WAITING_ACTIONS;
  if (more > 0) blocks.push(section(`_and ${more} more actions in the console_`));
  return blocks;
}

function renderResolved(notice: Notice): Block[] {
  const { run } = notice;
  const names = listAlertNames(run);
  const alerts = names.length > 0 ? names.map((name) => `*${escapeMrkdwn(name)}*`).join(', ') : 'the alerts';
  const diagnosis = run.diagnosis
    ? ` It was diagnosed as ${escapeMrkdwn(`${run.diagnosis.category}: ${formatCulprit(run.diagnosis.culprit)}`)}.`
    : '';
  return [
    header(describeTitle(notice)),
    section(`${names.length === 1 ? 'The alert' : 'The alerts'} of this run resolved: ${alerts}.${diagnosis}`),
  ];
}

/** Category, culprit, cluster, confidence, namespace, severity and status, as two columns. */
function renderFacts(run: RunView): Block {
  const facts: [string, string | undefined][] = [
    ['Category', run.diagnosis?.category],
    ['Culprit', run.diagnosis ? formatCulprit(run.diagnosis.culprit) : undefined],
    ['Cluster', describeCluster(run)],
    ['Confidence', run.diagnosis?.confidence],
    ['Namespace', readNamespace(run)],
    ['Severity', readSeverity(run)],
    ['Status', run.status.replaceAll('_', ' ')],
  ];
  const fields = facts
    .filter((fact): fact is [string, string] => fact[1] !== undefined)
    .slice(0, SLACK_LIMITS.fields)
    .map(([label, value]) =>
      mrkdwn(`*${label}*\n${fitMrkdwn(escapeMrkdwn(value), SLACK_LIMITS.fieldText - label.length - 3)}`),
    );
  return { type: 'section', fields };
}

/** `` `tool` on `target` ``: an action's line in a list. */
function renderActionLine(action: RunView['actions'][number]): string {
  return `\`${escapeMrkdwn(action.tool)}\` on \`${escapeMrkdwn(describeTarget(action))}\``;
}

/** A held action for the person who decides: what, on what, why, the first lines of its dry-run diff, and its page in the console. */
function renderWaitingAction(action: RunView['actions'][number], runUrl: string | undefined): string {
  const lines = [`*${renderActionLine(action)}* — ${escapeMrkdwn(describeActionStatus(action))}`];
  if (runUrl)
    lines.push(
      formatLink(`${runUrl}/actions/${encodeURIComponent(action.id)}`, 'Review the diff, then approve or reject'),
    );
  if (action.reason) lines.push(escapeMrkdwn(truncate(action.reason.trim(), LINE_LIMIT)));
  const diff = action.diff ?? [];
  if (diff.length > 0) {
    const shown = diff
      .slice(0, SHOWN_DIFF_LINES)
      .map((line) => escapeMrkdwn(truncate(line, LINE_LIMIT)).replaceAll('```', "'''"));
    const more = diff.length - SHOWN_DIFF_LINES;
    lines.push(`\`\`\`${shown.join('\n')}${more > 0 ? `\n… ${more} more lines` : ''}\`\`\``);
  }
  return lines.join('\n');
}

/** The run id, and the console link when there is one. */
function renderFooter(notice: Notice): Block {
  const elements = [mrkdwn(`Run \`${escapeMrkdwn(notice.run.id)}\``)];
  if (notice.runUrl) elements.push(mrkdwn(formatLink(notice.runUrl, 'Open run in kubewhy')));
  return { type: 'context', elements };
}

/** The notification text: the title, and what to do or what was found, in plain words. */
function renderFallbackText(notice: Notice): string {
  const title = describeTitle(notice);
  const { run } = notice;
  let detail = '';
  if (notice.event === 'finished') detail = run.diagnosis ? run.diagnosis.summary : (run.reason ?? '');
  if (notice.event === 'approval' && listWaitingActions(run).length > 0) {
    const expiry = readEarliestExpiry(run);
    detail = `Approve or reject in the console${expiry ? ` before ${expiry}` : ''}.`;
  }
  const text = detail ? `${title} — ${detail}` : title;
  return fitMrkdwn(escapeMrkdwn(text.replaceAll(/\s+/g, ' ')), SLACK_LIMITS.fallbackText);
}

/** `<url|label>`, with the characters that would end the link percent-encoded and `&` escaped as Slack asks. */
function formatLink(url: string, label: string): string {
  const safeUrl = url.replaceAll('&', '&amp;').replaceAll('<', '%3C').replaceAll('>', '%3E').replaceAll('|', '%7C');
  return `<${safeUrl}|${escapeMrkdwn(label)}>`;
}

/** At most 50 blocks: the last kept one says how many were left out. The footer always stays. */
function fitBlockCount(blocks: Block[]): Block[] {
  if (blocks.length <= SLACK_LIMITS.blocks) return blocks;
  const footer = blocks[blocks.length - 1] as Block;
  const kept = blocks.slice(0, SLACK_LIMITS.blocks - 2);
  return [...kept, section(`_${blocks.length - kept.length - 1} more sections in the console_`), footer];
}

function header(text: string): Block {
  return {
    type: 'header',
    text: {
      type: 'plain_text',
      text: truncate(text.replaceAll(/\s+/g, ' ').trim(), SLACK_LIMITS.headerText),
      emoji: false,
    },
  };
}

function section(text: string): Block {
  return { type: 'section', text: mrkdwn(fitMrkdwn(text, SLACK_LIMITS.sectionText)) };
}

function mrkdwn(text: string): TextObject {
  return { type: 'mrkdwn', text };
}

/**
 * Cuts escaped mrkdwn to `limit` characters without leaving half an entity (`&am…`) or
 * an open code block behind.
 */
function fitMrkdwn(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let cut = truncate(text, limit - 3).slice(0, -1);
  cut = cut.replace(/&[a-z]{0,3}$/, '');
  const openCodeBlock = (cut.match(/```/g) ?? []).length % 2 === 1;
  return openCodeBlock ? `${cut}…\`\`\`` : `${cut}…`;
}
