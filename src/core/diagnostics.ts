// Diagnostics live at the base of the layers (beside errors.ts) so format readers can use them.
export * from '../diagnostics.js';
