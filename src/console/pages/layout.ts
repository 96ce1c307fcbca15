/**
 * The page every console view sits in: a skip link, a header with the product name and
 * who is signed in (and a sign-out form), the navigation, and the main landmark. No
 * inline script or style: the CSP allows only this origin's assets.
 */
import { html, type SafeHtml } from '../html.ts';
import type { Person } from '../session.ts';

export interface LayoutInput {
  title: string;
  main: SafeHtml;
  /** Absent on the sign-in page. */
  person?: Person;
  /** Scripts the page needs (same-origin paths). */
  scripts?: string[];
}

export function renderLayout(input: LayoutInput): string {
  const { person } = input;
  return `<!doctype html>\n${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${input.title} · kubewhy</title>
<link rel="stylesheet" href="/console/assets/console.css">
${(input.scripts ?? []).map((source) => html`<script src="${source}" defer></script>`)}
</head>
<body>
<a class="skip-link" href="#main">Skip to main content</a>
<header class="site-header">
  <div class="site-header-inner">
    <a class="brand" href="/">kubewhy<span class="brand-sub">console</span></a>
    ${
      person
        ? html`<nav aria-label="Main">
      <ul class="nav-list"><li><a href="/">Runs</a></li></ul>
    </nav>`
        : ''
    }
    ${person ? renderPerson(person) : ''}
  </div>
</header>
<main id="main" tabindex="-1">
${input.main}
</main>
</body>
</html>`}\n`;
}

function renderPerson(person: Person): SafeHtml {
  const ability = person.canApprove ? 'may approve' : 'read only';
  return html`<div class="who">
    <span class="who-name">Signed in as <strong>${person.identity}</strong> <span class="who-ability">(${ability})</span></span>
    ${
      person.signedIn
        ? html`<form method="post" action="/logout" class="inline-form">
      <input type="hidden" name="csrf" value="${person.csrf}">
      <button type="submit" class="button button-quiet">Sign out</button>
    </form>`
        : ''
    }
  </div>`;
}

/** A page that says what went wrong, with a way back. */
export function renderErrorPage(input: { title: string; message: string; person?: Person }): string {
  return renderLayout({
    title: input.title,
    ...(input.person ? { person: input.person } : {}),
    main: html`<h1>${input.title}</h1>
<p class="lead">${input.message}</p>
<p><a href="/">Back to the runs</a></p>`,
  });
}
