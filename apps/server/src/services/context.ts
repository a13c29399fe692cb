import type { Db, DialectName } from '../db/index.js';
import type { Logger } from '../logger.js';

/** What every service needs; one instance per process. */
export interface ServiceContext {
  db: Db;
  dialect: DialectName;
  logger: Logger;
  /** QUIRE_JWT_SECRET when set; see `Config.jwtSecret`. */
  jwtSecret?: string;
}
