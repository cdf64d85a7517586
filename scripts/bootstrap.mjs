#!/usr/bin/env node
// Installs whatever this machine is missing for the stack, then returns. Plain JavaScript on
// purpose: it runs before node_modules exists, on the system's Node (which may be old).
//
//   npm packages        npm install from the lock file (when node_modules is missing or older than it)
//   Temporal CLI        go install ...temporal@v1.5.1 into .tools/bin (unless `temporal` is on PATH)
//   Chromium + fonts    Debian packages chromium, chromium-headless-shell, fonts-noto-core
//   PostgreSQL          Debian package postgresql, only when no DATABASE_URL is set and none is installed
//   schemathesis        pinned, from PyPI into the project's own .venv (python3 -m venv; Debian's
//                       python3-venv when the system Python cannot make one), for the contract test
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const toolsBin = join(root, '.tools', 'bin');
const TEMPORAL_VERSIONS = ['v1.5.1', 'v1.5.0', 'v1.4.1'];
const venv = join(root, '.venv');
/** The contract fuzzer (test/contract/schemathesis.test.ts); a new pin reinstalls it. */
const SCHEMATHESIS = 'schemathesis==4.32.5';

function log(message) {
  console.log(`[bootstrap] ${message}`);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', cwd: root, ...options });
  return result.status === 0;
}

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function ensureNpmPackages() {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  // Not `npm ci`: it refuses a lock file whose optional platform packages (such as @swc/core's
  // builds for other systems) the registry in use does not carry; `npm install` follows the same
  // lock and skips them.
  log('installing npm packages (npm install)');
  if (!run('npm', ['install', '--no-audit', '--no-fund'])) throw new Error('npm install failed');
}

let aptUpdated = false;
function aptInstall(packages) {
  if (process.getuid?.() !== 0) {
    throw new Error(
      `missing Debian packages: ${packages.join(' ')} (run: sudo apt-get install -y ${packages.join(' ')})`,
    );
  }
  if (!aptUpdated) {
    log('apt-get update');
    run('apt-get', ['update', '-qq']);
    aptUpdated = true;
  }
  log(`apt-get install ${packages.join(' ')}`);
  const ok = run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (!ok) throw new Error(`apt-get install ${packages.join(' ')} failed`);
}

function debInstalled(name) {
  try {
    return execFileSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' }).includes(
      'install ok installed',
    );
  } catch {
    return false;
  }
}

function ensureDebianPackages() {
  const wanted = [];
  if (!existsSync(process.env.CHROMIUM_PATH || '/usr/bin/chromium')) wanted.push('chromium');
  if (!existsSync(process.env.PDF_CHROMIUM_PATH || '/usr/bin/chromium-headless-shell'))
    wanted.push('chromium-headless-shell');
  if (!debInstalled('fonts-noto-core')) wanted.push('fonts-noto-core');
  const hasPostgres = existsSync('/usr/lib/postgresql') || onPath('postgres');
  if (!process.env.DATABASE_URL && !hasPostgres) wanted.push('postgresql');
  if (wanted.length) aptInstall(wanted);
}

function ensureTemporal() {
  if (onPath('temporal') || existsSync(join(toolsBin, 'temporal'))) return;
  if (!onPath('go')) throw new Error('the Temporal CLI is missing and Go is not installed to build it');
  mkdirSync(toolsBin, { recursive: true });
  for (const version of TEMPORAL_VERSIONS) {
    log(`building the Temporal CLI ${version} with go install (a few minutes, once)`);
    const ok = run('go', ['install', `github.com/temporalio/cli/cmd/temporal@${version}`], {
      env: { ...process.env, GOBIN: toolsBin, GOFLAGS: '-mod=mod' },
    });
    if (ok) return;
    log(`go install of ${version} failed; trying the next version`);
  }
  throw new Error('could not build the Temporal CLI');
}

function ensureSchemathesis() {
  const python = join(venv, 'bin', 'python');
  const marker = join(venv, '.installed');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === SCHEMATHESIS) return;
  if (!existsSync(python)) {
    if (!onPath('python3')) aptInstall(['python3', 'python3-venv']);
    log('creating the Python virtual environment .venv');
    if (!run('python3', ['-m', 'venv', venv])) {
      // Debian's python3 makes a venv without pip until python3-venv is installed.
      rmSync(venv, { recursive: true, force: true });
      aptInstall(['python3-venv']);
      if (!run('python3', ['-m', 'venv', venv])) throw new Error('python3 -m venv failed');
    }
  }
  log(`installing ${SCHEMATHESIS} into .venv`);
  const ok = run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', SCHEMATHESIS]);
  if (!ok) throw new Error(`pip install ${SCHEMATHESIS} failed`);
  writeFileSync(marker, SCHEMATHESIS);
}

try {
  ensureNpmPackages();
  ensureDebianPackages();
  ensureTemporal();
  ensureSchemathesis();
} catch (error) {
  console.error(`[bootstrap] ${error.message}`);
  process.exit(1);
}
