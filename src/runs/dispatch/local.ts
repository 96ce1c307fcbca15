/**
 * The dispatcher of one process: run ids wait in memory (`run-queue.ts`) and at most
 * `concurrency` run at once; the runs table is the record, so a start rebuilds the queue
 * from it (recover-runs.ts). A held run keeps its place until its hold is over, then joins
 * the queue.
 */
import { recoverRuns } from '../recover-runs.ts';
import { createDelays } from './delays.ts';
import { createPlaces, type Dispatcher, type DispatcherInput } from './dispatcher.ts';
import { createRunQueue } from './run-queue.ts';

export function createLocalDispatcher(input: DispatcherInput): Dispatcher {
  const { recovery, logger, now } = input;
  const places = createPlaces();
  const delays = createDelays();
  const queue = createRunQueue({
    concurrency: input.concurrency,
    queueSize: input.queueSize,
    start: (id) => input.run(id),
  });
  queue.pause();

  const offerAfter = (id: string, delayMs: number): void =>
    delays.after(delayMs, () => void queue.offer(id, { force: true }));

  return {
    async start() {
      const report = await recoverRuns(recovery);
      // Recovered runs were accepted before: they are queued even beyond the queue's size.
      for (const id of report.queue) {
        const notBefore = (await recovery.store.get(id))?.notBefore;
        offerAfter(id, notBefore ? Date.parse(notBefore) - now().getTime() : 0);
      }
      queue.resume();
      if (report.queue.length + report.failed.length + report.ended.length > 0) {
        logger.info(
          {
            queued: report.queue.length - report.resumed.length,
            resumed: report.resumed.length,
            failed: report.failed.length,
            ended: report.ended.length,
          },
          'recovered unfinished runs',
        );
      }
      return report;
    },
    reserve({ held }) {
      const place = places.take();
      return {
        // The hold is kept here, in memory: the run keeps its place until it is over.
        commit(run) {
          delays.after(held ? input.holdMs : 0, () => {
            place.release();
            queue.offer(run.id, { force: true });
          });
        },
        rollback: () => void place.release(),
      };
    },
    offer(run) {
      offerAfter(run.id, run.notBefore ? Date.parse(run.notBefore) - now().getTime() : 0);
    },
    withdraw(runId) {
      queue.remove(runId);
    },
    ended() {
      // Nobody else waits: every caller of this database is in this process.
    },
    // A free worker takes a new run at once, so it counts as room too.
    room: () => queue.room() + Math.max(0, input.concurrency - queue.active()) - places.count(),
    depth: () => queue.depth(),
    active: () => queue.active(),
    pause() {
      queue.pause();
      delays.clear();
    },
    idle: () => queue.idle(),
    async close() {
      // Nothing outlives the queue.
    },
  };
}
