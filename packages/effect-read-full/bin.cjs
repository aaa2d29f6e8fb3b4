#!/usr/bin/env node
// The effect-read CLI, run from this package so that every optional source it depends on resolves.
// CommonJS, as effect-read's own command is: Node starts it without its ES module loader.
require("effect-read/bin")
