/**
 * Paths inside the kubewhy package, resolved from this module's own location, never from
 * the working directory: the same whether kubewhy runs from a checkout (this file is
 * src/package-paths.ts) or from an installed package (dist/src/package-paths.js), and
 * wherever it is started from.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's root folder: where package.json, bin/ and mock-cluster/ are. */
export const PACKAGE_ROOT = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? '../' : '../../', import.meta.url));

/** The demo incident the embedded mock cluster serves by default; it ships in the package. */
export const DEMO_SCENARIO_DIR = join(PACKAGE_ROOT, 'mock-cluster', 'scenarios', 'checkout-secret-rotation');

/** The healthy background clusters a scenario can be placed inside; they ship in the package. */
export const BACKGROUNDS_DIR = join(PACKAGE_ROOT, 'mock-cluster', 'backgrounds');

/**
 * The folder of all scenarios. A checkout has every one; an installed package has only the
 * demo scenario there, so commands that default to this folder say to pass one instead.
 */
export const SCENARIOS_DIR = join(PACKAGE_ROOT, 'mock-cluster', 'scenarios');
