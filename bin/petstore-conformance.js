#!/usr/bin/env node
// The petstore-conformance command. The code lives in cli/ (compiled to dist/cli/ by `npm run build`,
// which `npm ci`, `npm install` and `npm pack` run through the prepare and prepack scripts).
import { main } from '../dist/cli/main.js';

const code = await main(process.argv.slice(2), process.env);
// Exit now: a hostile server may leave sockets open, and the run is over whatever they do.
process.exit(code);
