# Drives Sidekiq's own client and API for nexq's interop tests: `ruby api.rb COMMAND [JSON]`.
# Prints one JSON document. REDIS_URL selects the Redis.
require_relative "jobs"
require "sidekiq/api"

Sidekiq.logger.level = Logger::WARN
command, input = ARGV[0], JSON.parse(ARGV[1] || "null")

def entry_hash(entry)
  entry.item.merge("score" => entry.score)
end

result =
  case command
  when "perform_async"
    Object.const_get(input["class"]).perform_async(*input["args"])
  when "perform_in"
    Object.const_get(input["class"]).perform_in(input["seconds"], *input["args"])
  when "push_bulk"
    Sidekiq::Client.push_bulk("class" => input["class"], "args" => input["args"], "queue" => input["queue"] || "default")
  when "push_raw"
    Sidekiq::Client.push(input)
  when "retries"
    Sidekiq::RetrySet.new.map { |e| entry_hash(e) }
  when "dead"
    Sidekiq::DeadSet.new.map { |e| entry_hash(e) }
  when "retry_backtraces"
    Sidekiq::RetrySet.new.map(&:error_backtrace)
  when "retry_all"
    Sidekiq::RetrySet.new.retry_all
    true
  when "dead_retry_all"
    Sidekiq::DeadSet.new.retry_all
    true
  when "processes"
    Sidekiq::ProcessSet.new.map { |p| %w[identity hostname pid queues concurrency busy quiet labels].to_h { |k| [k, p[k]] } }
  when "workers"
    Sidekiq::Workers.new.map { |process, tid, work| {"process" => process, "tid" => tid, "queue" => work["queue"], "jid" => work["payload"]["jid"], "class" => work["payload"]["class"], "run_at" => work["run_at"]} }
  when "stats"
    s = Sidekiq::Stats.new
    {"processed" => s.processed, "failed" => s.failed, "enqueued" => s.enqueued, "retry_size" => s.retry_size, "dead_size" => s.dead_size, "workers_size" => s.workers_size}
  when "queue_latency"
    Sidekiq::Queue.new(input).latency
  when "quiet"
    Sidekiq::ProcessSet.new.find { |p| p.identity == input }.quiet!
    true
  when "stop"
    Sidekiq::ProcessSet.new.find { |p| p.identity == input }.stop!
    true
  else
    raise "unknown command #{command}"
  end

puts JSON.dump(result)
