/**
 * What every gathering step receives: the query it reads the cluster through, and the
 * steps it hands over to (a Service to its worst pod, a pod gone to its workload, a
 * namespace to its sick node). The steps are bound once, in gather-case.ts, so no step
 * imports another that imports it back and the folder reads one way.
 */
import type { FocusOf, Gathered } from '../case.ts';
import type { Query } from '../query.ts';

export interface PodTarget {
  namespace: string;
  name: string;
}

export interface Gathering {
  query: Query;
  /** A pod's details, log, node and the objects above it, added to what is known. `readHealthyLogs`: read a ready container's log too. */
  pod(target: PodTarget, known: Gathered, options?: { readHealthyLogs?: boolean }): Gathered;
  workload(focus: FocusOf<'workload'>): Gathered;
  node(focus: FocusOf<'node'>): Gathered;
  service(focus: FocusOf<'service'>): Gathered;
  area(focus: FocusOf<'namespace' | 'cluster'>): Gathered;
}
