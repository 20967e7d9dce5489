// Runs in every test file's process before the file: the services global-setup.ts chose.
import { inject } from 'vitest';

Object.assign(process.env, inject('testServices'));
