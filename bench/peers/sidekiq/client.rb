# The Sidekiq peer's enqueue side (role "enqueue" of bench/peers/peer.js, in Ruby):
# Sidekiq::Client.push one at a time, push_bulk in chunks, or W3's jobs spaced gapMs apart.
require_relative "bench"

module NexqBench
  def self.push_one(i, klass = "NoopJob")
    Sidekiq::Client.push("queue" => QUEUE, "class" => klass, "args" => [i])
  end

  def self.push_bulk(from, count)
    chunk = CONFIG.fetch("chunk")
    (0...count).step(chunk) do |done|
      n = [chunk, count - done].min
      Sidekiq::Client.push_bulk("queue" => QUEUE, "class" => "NoopJob", "args" => (0...n).map { |k| [from + done + k] })
    end
  end

  def self.push_spaced(from, count)
    count.times do |i|
      push_one(from + i, "LatencyJob")
      sleep(CONFIG.fetch("gapMs") / 1000.0)
    end
  end

  def self.enqueue
    how, count, warmup = CONFIG.values_at("how", "count", "warmup")
    case how
    when "spaced"
      settle = CONFIG.fetch("settleMs") / 1000.0
      sleep(settle)
      push_spaced(-warmup, warmup)
      sleep(settle)
    when "one" then warmup.times { |i| push_one(-1 - i) }
    else push_bulk(-warmup, warmup)
    end
    redis_before = redis_cpu_seconds
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    case how
    when "one" then count.times { |i| push_one(i) }
    when "bulk" then push_bulk(0, count)
    else push_spaced(0, count)
    end
    seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
    emit(type: "enqueued", seconds: seconds, redisCpuSeconds: redis_cpu_seconds - redis_before)
  end
end

NexqBench.emit(type: "version", version: "Sidekiq #{Sidekiq::VERSION}")
begin
  NexqBench.enqueue
rescue => e
  NexqBench.emit(type: "error", message: "#{e.class}: #{e.message}\n#{e.backtrace.first(5).join("\n")}")
  exit 1
end
