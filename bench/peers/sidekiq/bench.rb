# What the Sidekiq peer's two sides share: the bench's configuration (NEXQ_BENCH_PEER, JSON),
# JSON lines on stdout (the messages of peer.js), and CPU readings in the same units.
require "json"
require "sidekiq"

module NexqBench
  CONFIG = JSON.parse(ENV.fetch("NEXQ_BENCH_PEER", "{}"))
  QUEUE = "default"
  OUT = Mutex.new
  $stdout.sync = true

  def self.emit(msg)
    OUT.synchronize { $stdout.write("#{JSON.generate(msg)}\n") }
  end

  # Epoch milliseconds with µs precision (Sidekiq's enqueued_at is epoch seconds as a float).
  def self.now_ms
    Process.clock_gettime(Process::CLOCK_REALTIME, :float_millisecond)
  end

  def self.mono_us
    Process.clock_gettime(Process::CLOCK_MONOTONIC, :microsecond)
  end

  # User and system CPU µs of this process (all its threads), as Node's process.cpuUsage().
  def self.cpu_times
    t = Process.times
    { user: (t.utime * 1e6).round, system: (t.stime * 1e6).round }
  end

  def self.redis_cpu_seconds
    stat = File.read("/proc/#{CONFIG.fetch("redisPid")}/stat")
    fields = stat[(stat.rindex(")") + 2)..].split(" ")
    (fields[11].to_i + fields[12].to_i) / 100.0
  end

  # redis-rb 4.8 warns on stderr at every call Sidekiq 6.4 makes the old way (brpop's timeout,
  # sadd's return): one line per job, which would be measured as Sidekiq's cost.
  Redis.silence_deprecations = true
  redis = { url: CONFIG.fetch("redisUrl") }
  Sidekiq.configure_client { |c| c.redis = redis }
  Sidekiq.configure_server do |c|
    c.redis = redis
    c.logger.level = Logger::WARN
  end
end
