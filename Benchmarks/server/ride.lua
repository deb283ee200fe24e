-- wrk script for the ride server benchmark (Benchmarks/server/run.sh). Environment:
--   RB_MODE     hello | get | list | open | place | write
--               (open: the open ride requests, as a driver; place: a saved-place write, as the passenger)
--   RB_PACE_MS  if set, each connection waits this long between requests (wrk's delay() hook):
--               Debian's wrk 4.1 has no -R rate option, so a fixed rate is connections x 1000/pace
--   RB_RIDE_ID, RB_PASSENGER_TOKEN, RB_DRIVER_TOKEN, RB_DISPATCHER_TOKEN
-- done() prints one JSON line the run script turns into the table in BENCHMARKS.md.
local mode = os.getenv("RB_MODE") or "hello"
local pace = tonumber(os.getenv("RB_PACE_MS") or "")
local passenger = "Bearer " .. (os.getenv("RB_PASSENGER_TOKEN") or "")
local driver = "Bearer " .. (os.getenv("RB_DRIVER_TOKEN") or "")
local dispatcher = "Bearer " .. (os.getenv("RB_DISPATCHER_TOKEN") or "")
local ride = os.getenv("RB_RIDE_ID") or ""
local placeBody = '{"name":"home","address":"Main St 1"}'
local requestBody = '{"passengerName":"Ana","pickup":"Main St 1","dropoff":"Central Station"}'

if pace then
  function delay() return pace end
end

-- The write path: each new request is followed, on whichever connection is free next, by its
-- accept and then its arrive. Every request of the three kinds is a database write.
local pending = {}

function request()
  if mode == "hello" then
    return wrk.format("GET", "/bench/hello")
  elseif mode == "get" then
    return wrk.format("GET", "/v1/rides/" .. ride, { Authorization = dispatcher })
  elseif mode == "list" then
    return wrk.format("GET", "/v1/rides?limit=50", { Authorization = dispatcher })
  elseif mode == "open" then
    return wrk.format("GET", "/v1/ride-requests?limit=50", { Authorization = driver })
  elseif mode == "place" then
    return wrk.format("POST", "/v1/places", { Authorization = passenger, ["Content-Type"] = "application/json" }, placeBody)
  end
  local step = table.remove(pending, 1)
  if step then
    return wrk.format("POST", step, { Authorization = driver })
  end
  return wrk.format("POST", "/v1/ride-requests", { Authorization = passenger, ["Content-Type"] = "application/json" }, requestBody)
end

if mode == "write" then
  function response(status, headers, body)
    local id = body:match('"id":"([^"]+)"')
    if status == 201 and id then
      table.insert(pending, "/v1/ride-requests/" .. id .. "/accept")
    elseif status == 200 and id and body:find('"state":"accepted"', 1, true) then
      table.insert(pending, "/v1/rides/" .. id .. "/arrive")
    end
  end
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"seconds":%.2f,"rps":%.1f,"p50_ms":%.3f,"p99_ms":%.3f,"socket_errors":%d,"non2xx":%d}\n',
    summary.requests, seconds, summary.requests / seconds, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    e.connect + e.read + e.write + e.timeout, e.status))
end
