import { z } from 'zod';

/**
 * The one place that reads the environment. Every setting is listed (with its default) in
 * .env.example; a bad value stops the process at start-up with a message naming the setting.
 */
const booleanFlag = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

const ConfigSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().default('0.0.0.0'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:54329/busbooking'),
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(20),
    TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
    TEMPORAL_NAMESPACE: z.string().default('default'),
    TEMPORAL_TASK_QUEUE: z.string().default('bus-booking'),
    TEMPORAL_TLS: booleanFlag.default(false),
    TEMPORAL_API_KEY: z.string().optional(),
    /** Signs and verifies traveller access tokens (HS256). At least 32 characters. */
    ACCESS_TOKEN_SECRET: z.string().min(32).default('dev-only-access-token-secret-change-me-0000'),
    ACCESS_TOKEN_ISSUER: z.string().default('bus-booking'),
    ACCESS_TOKEN_AUDIENCE: z.string().default('bus-booking-customer'),
    /** Requests per minute per client IP on POST /journeys/search; 0 disables the limit. */
    SEARCH_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(120),
    /** Minimum change time between two legs at the same stop, in minutes. */
    TRANSFER_MIN_SAME_STOP_MINUTES: z.coerce.number().int().min(0).default(20),
    /** Minimum change time between two stops of the same city, in minutes. */
    TRANSFER_MIN_SAME_CITY_MINUTES: z.coerce.number().int().min(0).default(60),
    /** Longest wait offered between two legs, in minutes. */
    TRANSFER_MAX_WAIT_MINUTES: z.coerce.number().int().min(1).default(360),
    CHROMIUM_PATH: z.string().default('/usr/bin/chromium'),
    /** Public origin of the site, used in links the API hands out. */
    PUBLIC_ORIGIN: z.string().url().default('http://localhost:3000'),
  })
  .strict();

export type Config = z.infer<typeof ConfigSchema>;

const knownKeys = new Set(Object.keys(ConfigSchema.shape));

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const relevant = Object.fromEntries(
    Object.entries(env).filter(([key, value]) => knownKeys.has(key) && value !== undefined && value !== ''),
  );
  const parsed = ConfigSchema.safeParse(relevant);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n${problems.join('\n')}`);
  }
  const config = parsed.data;
  if (config.NODE_ENV === 'production' && config.ACCESS_TOKEN_SECRET.startsWith('dev-only')) {
    throw new Error('Invalid configuration:\n  ACCESS_TOKEN_SECRET: the development secret is refused in production');
  }
  return config;
}
