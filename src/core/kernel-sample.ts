// The canonical kernel-sample table is produced by the profile readers (src/formats/profiles).
export * from '../formats/profiles/kernel-sample.js';
