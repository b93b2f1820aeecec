// The MCP conformance suite's client authorization scenarios against our OAuth code (src/auth, driven by
// scripts/conformance/client.ts): `npm run conformance:auth`, one test per run.
import { describeConformanceSet } from './conformance-set';

describeConformanceSet('auth', 'MCP conformance: client authorization scenarios');
