#!/usr/bin/env node
// The effect-read CLI, run from this package so that every optional source it depends on resolves.
import "effect-read/bin"
