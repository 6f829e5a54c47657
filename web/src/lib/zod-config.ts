import { z } from 'zod';

// The app's Content-Security-Policy allows no eval (gateway/routes.yaml, securityHeaders). Zod would
// probe for it with `new Function` before its first object parse: the probe fails safely but reports a
// CSP violation. jitless skips the probe and the compiled fast path (forms are small; nothing is lost).
z.config({ jitless: true });
