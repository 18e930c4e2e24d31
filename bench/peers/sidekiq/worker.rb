# The Sidekiq peer's work side, required by `sidekiq -e production -c C -q default -r <this file>`
# (role "work" of bench/peers/peer.js, in Ruby). A server middleware counts finished jobs; W3's
# LatencyJob reads its job's enqueued_at (Sidekiq sets it at push) as it starts.
require_relative "bench"

module NexqBench
  PROGRESS_SECONDS = 1
  @lock = Mutex.new
  @finished = 0
  @failed = 0
  @latencies = []
  @ready_at = nil
  @last = nil

  class << self
    attr_reader :finished, :failed

    def finish(ok, reading)
      @lock.synchronize do
        ok ? @finished += 1 : @failed += 1
        @latencies << reading if reading
        @last = { at: now_ms, mono: mono_us, cpu: cpu_times } if @finished + @failed == CONFIG.fetch("expect")
        maybe_done
      end
    end

    def ready
      @lock.synchronize do
        @ready_at = now_ms
        emit(type: "ready", nodeId: "sidekiq", at: @ready_at, mono: mono_us, finishedAtReady: @finished + @failed, cpu: cpu_times)
        maybe_done
      end
      Thread.new do
        loop do
          sleep PROGRESS_SECONDS
          emit(type: "progress", acked: @finished, failed: @failed)
        end
      end
    end

    private

    def maybe_done
      return if @ready_at.nil? || @last.nil?
      late = @last[:at] < @ready_at # every job finished before the server was ready
      emit(type: "done", at: late ? @ready_at : @last[:at], mono: late ? mono_us : @last[:mono],
           acked: @finished, failed: @failed, cpu: @last[:cpu], latencies: @latencies)
      @last = nil
    end
  end

  # Counts a job once its code ran (Sidekiq's BasicFetch has no ack to wait for).
  class Counter
    def call(_worker, job, _queue)
      Thread.current[:nexq_bench_job] = job
      Thread.current[:nexq_bench_reading] = nil
      ok = false
      yield
      ok = true
    ensure
      NexqBench.finish(ok, Thread.current[:nexq_bench_reading])
    end
  end
end

class NoopJob
  include Sidekiq::Worker

  def perform(_index)
    nil
  end
end

class LatencyJob
  include Sidekiq::Worker

  def perform(index)
    started = NexqBench.now_ms / 1000.0
    Thread.current[:nexq_bench_reading] = { "index" => index, "seconds" => started - Thread.current[:nexq_bench_job].fetch("enqueued_at") }
  end
end

Sidekiq.configure_server do |c|
  c.server_middleware { |chain| chain.add NexqBench::Counter }
  c.on(:startup) { NexqBench.ready }
end
NexqBench.emit(type: "version", version: "Sidekiq #{Sidekiq::VERSION}")
