/**
 * The mock cluster's public API: load a scenario, start a fake Kubernetes API server over
 * it, validate scenario directories, place a scenario inside a background cluster.
 */
export { loadScenario, listScenarioDirs, ScenarioError, type LoadedScenario } from './loader.ts';
export {
  listBackgrounds,
  loadBackground,
  mergeBackground,
  BackgroundError,
  BACKGROUNDS_ROOT,
  type Background,
} from './backgrounds.ts';
export { scenarioMetaSchema, parseCulprit, type ScenarioMeta } from './scenario-schema.ts';
export { startMockCluster, type MockCluster, type MockClusterOptions } from './server.ts';
export { parseFaultSpec, type FaultRule } from './faults.ts';
export { validateScenarios, type ScenarioReport } from './validate.ts';
export type { KubeObject, ScenarioLog } from './types.ts';
