/**
 * Format ids that modules outside the readers test for, apart from the readers themselves, so that such a test
 * (e.g. annotate's plan, which runs in worker threads) does not load a reader with it.
 */
export const KINETO_FORMAT = 'kineto';
