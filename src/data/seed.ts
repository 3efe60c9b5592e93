/**
 * Seeding: the demo data set (into an empty database only) and large synthetic data sets. Both go
 * through the importer, so seeded data obeys exactly the rules an imported file does.
 */
import { hashPassword } from '../domain/secrets.js';
import type { Store } from '../store/store.js';
import { TransferStore } from '../store/transfer.js';
import type { Clock } from '../services/clock.js';
import { DEMO_BASE_URL, DEMO_PASSWORD } from './demo-catalog.js';
import { demoRecords } from './demo-data.js';
import { ImportService } from './import.js';
import { type SyntheticOptions, syntheticRecords } from './synthetic-data.js';
import type { TransferOptions, TransferSummary } from './transfer.js';

export class NotEmptyError extends Error {
  constructor() {
    super('the database is not empty: demo data loads only into an empty database');
  }
}

export class SeedService {
  private readonly importer: ImportService;
  private readonly transfer: TransferStore;

  constructor(store: Store, clock: Clock) {
    this.importer = new ImportService(store, clock);
    this.transfer = new TransferStore(store);
  }

  isEmpty(): Promise<boolean> {
    return this.transfer.isEmpty();
  }

  /** Loads the demo data set; refuses a database that already has users, projects or events. */
  async seedDemo(
    options: TransferOptions = {},
    baseUrl: string = DEMO_BASE_URL,
  ): Promise<TransferSummary> {
    if (!(await this.isEmpty())) throw new NotEmptyError();
    // One hash for every demo user: they share the documented demo password anyway.
    const records = demoRecords(await hashPassword(DEMO_PASSWORD), baseUrl);
    return this.importer.importRecords(records, options);
  }

  /** Loads the demo data set when the database is empty; null when it was not. */
  async seedDemoIfEmpty(
    options: TransferOptions = {},
    baseUrl: string = DEMO_BASE_URL,
  ): Promise<TransferSummary | null> {
    if (!(await this.isEmpty())) return null;
    return this.seedDemo(options, baseUrl);
  }

  /** Appends synthetic data after whatever ids already exist. */
  async seedSynthetic(
    synthetic: SyntheticOptions,
    options: TransferOptions = {},
  ): Promise<TransferSummary> {
    const offsets = await this.transfer.maxIds();
    // Generated events take the ids after the highest: their partitions are made up front.
    await this.transfer.prepareEventIds(offsets.events + 1, offsets.events + synthetic.events);
    return this.importer.importRecords(syntheticRecords(synthetic, offsets), options);
  }
}
