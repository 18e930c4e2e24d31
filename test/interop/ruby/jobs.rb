# Job classes for the real Sidekiq in nexq's interop tests. They report into Redis lists the
# TypeScript tests read. Loaded by `sidekiq -r` and by api.rb.
require "sidekiq"
require "json"

# Records its arguments exactly as Sidekiq hands them over. The first argument is the Redis URL the
# nexq twin of this job (test/fixtures/jobs/RecordArgs.js) reports to; Sidekiq has its own.
class Record
  include Sidekiq::Worker

  def perform(_url, key, *values)
    Sidekiq.redis { |c| c.rpush(key, JSON.dump({"values" => values, "jid" => jid})) }
  end
end

# Always fails.
class Fail
  include Sidekiq::Worker

  def perform(*)
    raise ArgumentError, "sidekiq says no"
  end
end

# Tests wait on the scheduler; poll due jobs every second rather than Sidekiq's default ~5-15 s.
Sidekiq.configure_server { |config| config.average_scheduled_poll_interval = 1 }
