/**
 * A notice as the body a Microsoft Teams Workflows webhook ("When a Teams webhook request
 * is received") posts: a `message` with one Adaptive Card 1.4 attachment (the version
 * Teams renders on every client). The card says what the Slack message says, in
 * TextBlocks and a FactSet, with the console link as an `Action.OpenUrl`. Workflows
 * reject a message over 28 KB, so texts are cut (`TEAMS_LIMITS`). Pure.
 *
 * TextBlocks read markdown, so `[text](url)` in a pod's log would become a link with any
 * text. What the run quotes (the summary, evidence, reasons, diffs, a failure's reason)
 * is therefore written as RichTextBlock TextRuns, which Adaptive Cards never read as
 * markdown; TextBlocks carry only kubewhy's own words and names.
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
  readNamespace,
  readSeverity,
  truncate,
} from './notice-facts.ts';

export const TEAMS_LIMITS = { title: 200, summary: 3000, line: 500, waitingActions: 10 } as const;

export const ADAPTIVE_CARD_CONTENT_TYPE = 'application/vnd.microsoft.card.adaptive';

type Element =
  | {
      type: 'TextBlock';
      text: string;
      wrap: true;
      size?: 'Large';
      weight?: 'Bolder';
      isSubtle?: true;
      spacing?: 'Medium';
    }
  | { type: 'RichTextBlock'; inlines: { type: 'TextRun'; text: string; fontType?: 'Monospace' }[]; spacing?: 'None' }
  | { type: 'FactSet'; facts: { title: string; value: string }[] };

export interface TeamsMessage {
  type: 'message';
  attachments: [
    {
      contentType: typeof ADAPTIVE_CARD_CONTENT_TYPE;
      contentUrl: null;
      content: {
        $schema: 'http://adaptivecards.io/schemas/adaptive-card.json';
        type: 'AdaptiveCard';
        version: '1.4';
        body: Element[];
        actions?: { type: 'Action.OpenUrl'; title: string; url: string }[];
      };
    },
  ];
}

export function renderTeamsMessage(notice: Notice): TeamsMessage {
  const title: Element = {
    type: 'TextBlock',
    text: truncate(describeTitle(notice), TEAMS_LIMITS.title),
    size: 'Large',
    weight: 'Bolder',
    wrap: true,
  };
  const body =
    notice.event === 'approval'
      ? renderApproval(notice.run)
      : notice.event === 'resolved'
        ? renderResolved(notice.run)
        : renderFinished(notice.run);
  const footer = text(`Run ${notice.run.id}`, { isSubtle: true });
  const runUrl = notice.runUrl;
  // An approval links each held action's page (its diff and the buttons) first; Teams shows a few buttons, so at most three.
  const decide =
    runUrl && notice.event === 'approval'
      ? listWaitingActions(notice.run)
          .slice(0, 3)
          .map((action) => ({
            type: 'Action.OpenUrl' as const,
            title: `Review ${action.tool}`,
            url: `${runUrl}/actions/${encodeURIComponent(action.id)}`,
          }))
      : [];
  const actions = runUrl
    ? [...decide, { type: 'Action.OpenUrl' as const, title: 'Open run in kubewhy', url: runUrl }]
    : undefined;
  return {
    type: 'message',
    attachments: [
      {
        contentType: ADAPTIVE_CARD_CONTENT_TYPE,
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [title, ...body, footer],
          ...(actions ? { actions } : {}),
        },
      },
    ],
  };
}

function renderFinished(run: RunView): Element[] {
  const diagnosis = run.diagnosis;
  if (!diagnosis)
    return [
      renderFacts(run),
      text('kubewhy could not diagnose this run.'),
      quote(truncate(run.reason ?? 'No reason was recorded.', TEAMS_LIMITS.summary)),
    ];
  const elements: Element[] = [quote(truncate(diagnosis.summary, TEAMS_LIMITS.summary)), renderFacts(run)];
  const evidence = diagnosis.evidence
    .slice(0, SHOWN_EVIDENCE)
    .map((line) => bullet(truncate(line.trim(), TEAMS_LIMITS.line)));
  const more = diagnosis.evidence.length - SHOWN_EVIDENCE;
  if (evidence.length > 0)
    elements.push(
      heading('Evidence'),
      ...evidence,
      ...(more > 0 ? [text(`and ${more} more in the console`, { isSubtle: true })] : []),
    );
  const actions = listShownActions(run).map((action) =>
    bullet(`${action.tool} on ${describeTarget(action)}: ${describeActionStatus(action)}`),
  );
  if (actions.length > 0) elements.push(heading('Actions'), ...actions);
  const notFound = listNotFound(run).map(bullet);
  if (notFound.length > 0) elements.push(heading('Not found in the cluster'), ...notFound);
  return elements;
}

function renderApproval(run: RunView): Element[] {
  const waiting = listWaitingActions(run);
  const elements: Element[] = [text(describeHold(run))];
  for (const action of waiting.slice(0, TEAMS_LIMITS.waitingActions)) {
    elements.push(heading(`${action.tool} on ${describeTarget(action)}`));
    elements.push(text(describeActionStatus(action), { isSubtle: true }));
    if (action.reason) elements.push(quote(truncate(action.reason.trim(), TEAMS_LIMITS.line)));
    const diff = action.diff ?? [];
    const more = diff.length - SHOWN_DIFF_LINES;
    for (const line of diff.slice(0, SHOWN_DIFF_LINES))
      elements.push(quote(truncate(line, TEAMS_LIMITS.line), { monospace: true }));
    if (more > 0) elements.push(text(`… ${more} more lines in the console`, { isSubtle: true }));
  }
  const more = waiting.length - TEAMS_LIMITS.waitingActions;
  if (more > 0) elements.push(text(`and ${more} more actions in the console`));
  return elements;
}

function renderResolved(run: RunView): Element[] {
  const names = listAlertNames(run);
  const diagnosis = run.diagnosis
    ? ` It was diagnosed as ${run.diagnosis.category}: ${formatCulprit(run.diagnosis.culprit)}.`
    : '';
  return [
    text(
      `${names.length === 1 ? 'The alert' : 'The alerts'} of this run resolved: ${names.length > 0 ? names.join(', ') : 'all of them'}.${diagnosis}`,
    ),
  ];
}

function renderFacts(run: RunView): Element {
  const facts: [string, string | undefined][] = [
    ['Category', run.diagnosis?.category],
    ['Culprit', run.diagnosis ? formatCulprit(run.diagnosis.culprit) : undefined],
    ['Cluster', describeCluster(run)],
    ['Confidence', run.diagnosis?.confidence],
    ['Namespace', readNamespace(run)],
    ['Severity', readSeverity(run)],
    ['Status', run.status.replaceAll('_', ' ')],
  ];
  return {
    type: 'FactSet',
    facts: facts
      .filter((fact): fact is [string, string] => fact[1] !== undefined)
      .map(([title, value]) => ({ title, value: truncate(value, TEAMS_LIMITS.line) })),
  };
}

/** Quoted text, shown as written: a RichTextBlock's TextRun is never read as markdown. */
function quote(value: string, style: { monospace?: boolean } = {}): Element {
  return {
    type: 'RichTextBlock',
    inlines: [{ type: 'TextRun', text: value, ...(style.monospace ? { fontType: 'Monospace' as const } : {}) }],
    ...(style.monospace ? { spacing: 'None' as const } : {}),
  };
}

/** One list item, quoted: a bullet and the line, joined onto one line. */
function bullet(line: string): Element {
  return quote(`• ${line.replaceAll(/\s*\n\s*/g, ' ')}`);
}

function heading(value: string): Element {
  return {
    type: 'TextBlock',
    text: truncate(value, TEAMS_LIMITS.title),
    weight: 'Bolder',
    wrap: true,
    spacing: 'Medium',
  };
}

/** kubewhy's own words (which may name objects and alerts, never quote them at length). */
function text(value: string, style: { isSubtle?: true } = {}): Element {
  return { type: 'TextBlock', text: value, wrap: true, ...style };
}
