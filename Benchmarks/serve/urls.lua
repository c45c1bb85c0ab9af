-- wrk script of the image-service benchmark: cycles through the request paths in a file.
--
--   wrk -c 2 -t 2 -d 60s -s Benchmarks/serve/urls.lua http://127.0.0.1:PORT -- PATHS_FILE THREADS [statuses]
--
-- PATHS_FILE holds one request path a line (/insecure/rs:fit:512:512/...). Each thread walks
-- the whole list in order from its own starting point (thread k of THREADS starts at k/THREADS
-- of it; wrk's -t must equal THREADS), so
-- with 2 threads the two connections ask for different photos at any moment, and every photo
-- is asked for equally often. With "statuses", every response's status is counted (costs a
-- little Lua per response; used by the overload run to tell 429s from other errors).
-- done() prints one line for the benchmark to parse:
--   RESULT requests=N seconds=S rps=R p50_ms=.. p95_ms=.. p99_ms=.. max_ms=.. non2xx=N
--          socket_errors=N bytes=N [status_429=N status_503=N ...]

local paths = {}
local index = 1
statuses = {}  -- global: done() reads it from each thread
local threads = {}
local counter = 0

function setup(thread)
   thread:set("id", counter)
   counter = counter + 1
   table.insert(threads, thread)
end

function init(args)
   local file = assert(io.open(args[1], "r"), "cannot open " .. tostring(args[1]))
   for line in file:lines() do
      if #line > 0 then table.insert(paths, line) end
   end
   file:close()
   assert(#paths > 0, "no paths in " .. args[1])
   local nthreads = tonumber(args[2]) or 1
   index = math.floor(#paths * id / nthreads) % #paths + 1
   if args[3] == "statuses" then
      response = function(status, headers, body)
         statuses[status] = (statuses[status] or 0) + 1
      end
   end
end

function request()
   local path = paths[index]
   index = index % #paths + 1
   return wrk.format("GET", path)
end

function done(summary, latency, requests)
   local seconds = summary.duration / 1e6
   local e = summary.errors
   local line = string.format(
      "RESULT requests=%d seconds=%.3f rps=%.2f p50_ms=%.2f p95_ms=%.2f p99_ms=%.2f max_ms=%.2f non2xx=%d socket_errors=%d bytes=%d",
      summary.requests, seconds, summary.requests / seconds,
      latency:percentile(50) / 1000, latency:percentile(95) / 1000, latency:percentile(99) / 1000,
      latency.max / 1000, e.status, e.connect + e.read + e.write + e.timeout, summary.bytes)
   local totals = {}
   for _, thread in ipairs(threads) do
      local counts = thread:get("statuses")
      if counts then
         for status, n in pairs(counts) do totals[status] = (totals[status] or 0) + n end
      end
   end
   local keys = {}
   for status in pairs(totals) do table.insert(keys, status) end
   table.sort(keys)
   for _, status in ipairs(keys) do
      line = line .. string.format(" status_%d=%d", status, totals[status])
   end
   io.write(line .. "\n")
end
