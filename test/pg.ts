/** @deprecated Moved to `./support/pg.ts` (test helpers live in test/support/, contract suites in test/contracts/); kept so branches begun before the move still compile. */
export * from "./support/pg.js"
