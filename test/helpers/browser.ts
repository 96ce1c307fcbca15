/**
 * A headless Chromium for the console's browser tests, driven by playwright-core (which
 * downloads no browser of its own): `KUBEWHY_CHROMIUM` when set, else Debian's
 * /usr/bin/chromium, else a `chromium-browser` on PATH. A test skips, saying why, only when
 * none exists; CI installs the `chromium` package, so there it always runs.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { isExecutable } from '../../src/cli/invocation.ts';

export function findChromium(): string | undefined {
  const candidates = [
    process.env.KUBEWHY_CHROMIUM,
    '/usr/bin/chromium',
    ...(process.env.PATH ?? '')
      .split(delimiter)
      .filter(Boolean)
      .map((directory) => join(directory, 'chromium-browser')),
  ];
  return candidates.find(
    (candidate): candidate is string => candidate !== undefined && candidate !== '' && isExecutable(candidate),
  );
}

/** `skip` for node:test: false when Chromium is there, else the reason; never skipped in CI (`CI` set), where a missing browser must fail the run. */
export function chromiumSkipReason(): string | false {
  if (findChromium() || process.env.CI) return false;
  return 'no Chromium: install the chromium package, or set KUBEWHY_CHROMIUM to its executable';
}

export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error('no Chromium executable found');
  // Chromium refuses its sandbox as root (containers, CI).
  const asRoot = process.getuid?.() === 0;
  return chromium.launch({ executablePath, headless: true, ...(asRoot ? { args: ['--no-sandbox'] } : {}) });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; html: string }[];
}

/** axe-core's violations of impact serious or critical on the page as it is now. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol: the console's CSP (script-src 'self') rightly refuses an inline <script> tag.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: () => Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run()).violations;
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}
