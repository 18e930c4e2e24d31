// Which module handles a class: only entries built at start, never a path made from a class name.
import { expect } from 'chai';
import { HandlerRegistry, isValidClassName, UnknownJobClassError } from '../../src/handlers/registry';
import { ConfigError } from '../../config/config-error';
import { fixture, fixturesJobs } from '../support/paths';

describe('HandlerRegistry', () => {
  const registry = new HandlerRegistry({}, fixturesJobs);

  it('names the modules of jobsDir by file name, and nested ones in Ruby and Elixir style', () => {
    expect(registry.resolve('Record').file).to.equal(fixture('Record.js'));
    expect(registry.resolve('Esm').file).to.equal(fixture('Esm.mjs'));
    for (const name of ['Mailer::Welcome', 'Mailer.Welcome', 'Elixir.Mailer.Welcome']) {
      expect(registry.resolve(name).file).to.equal(fixture('Mailer/Welcome.js'));
    }
  });

  it('skips files whose names are not class names, and keeps them to say so at the start', () => {
    expect(registry.classNames).not.to.include('redis-client');
    expect(registry.skipped).to.deep.equal([fixture('redis-client.js')]);
  });

  it('maps the classes named in `jobs`, over jobsDir', () => {
    const custom = new HandlerRegistry(
      { Fail: fixture('Record.js'), 'Elixir.My.Job': fixture('Sleep.js') },
      fixturesJobs,
    );
    expect(custom.resolve('Fail').file).to.equal(fixture('Record.js'));
    expect(custom.resolve('My.Job').file).to.equal(fixture('Sleep.js'));
  });

  it('refuses a `jobs` entry whose name is not a class name with a ConfigError naming it', () => {
    expect(() => new HandlerRegistry({ '../x': fixture('Record.js') }))
      .to.throw(ConfigError, /jobs .*must be class names of letters, digits and _/)
      .with.property('code', 'CONFIG_INVALID');
  });

  it('resolves an ActiveJob wrapper by its wrapped class', () => {
    expect(registry.resolve('ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper', 'Record')).to.deep.equal({
      file: fixture('Record.js'),
      activeJob: true,
    });
  });

  for (const name of [
    '../Record',
    '/etc/passwd',
    '__proto__',
    'constructor',
    'Mailer::prototype',
    'Mailer/Welcome',
    '',
    'a b',
  ]) {
    it(`throws UnknownJobClassError for ${JSON.stringify(name)}, an invalid class name`, () => {
      expect(isValidClassName(name)).to.equal(false);
      expect(() => registry.resolve(name)).to.throw(UnknownJobClassError, /not a valid class name/);
    });
  }

  it('throws UnknownJobClassError for a valid name nobody handles, including Object.prototype members', () => {
    for (const name of ['Nope', 'toString', 'hasOwnProperty']) {
      expect(() => registry.resolve(name)).to.throw(UnknownJobClassError, /no handler is registered/);
    }
  });
});
