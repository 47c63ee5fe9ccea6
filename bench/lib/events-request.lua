-- POST /v1/events with 100 NDJSON events per request (one exposure, three trial starts per four
-- users), every id unique per wrk thread and request. Expects `counter` and `thread_id` from the
-- script it is appended to; WRK_PREFIX (empty by default) keeps ids of several wrk runs apart.
-- WRK_ATTRIBUTES=1 gives each exposure a placement and attributes, as AbctlClient sends them.
local id_prefix = os.getenv("WRK_PREFIX") or ""
local exposure_extra = ""
if os.getenv("WRK_ATTRIBUTES") == "1" then
  exposure_extra = ',"placement":"onboarding_end","attributes":{"platform":"ios","country":"US","app_version":"2.3.0","new_user":true}'
end
-- WRK_IDENTIFIED=1 turns every 20th line (5%) into an `identified` event linking the user of the
-- exposure before it to a known id (one person, two ids), in place of a trial start.
local identified = os.getenv("WRK_IDENTIFIED") == "1"
function init(args)
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/x-ndjson"
end
function request()
  counter = counter + 1
  local lines = {}
  for i = 1, 100 do
    local id = id_prefix .. thread_id .. "-" .. counter .. "-" .. i
    if i % 4 == 1 then
      lines[i] = '{"event_id":"ev-' .. id .. '","type":"exposure","user_id":"u-' .. id ..
        '","experiment":"chorus-paywall-copy","variant":"ai","ts":"2026-12-01T10:00:00Z","copy_source":"on_device"' .. exposure_extra .. '}'
    elseif identified and i % 20 == 2 then
      local user = id_prefix .. thread_id .. "-" .. counter .. "-" .. (i - 1)
      lines[i] = '{"event_id":"identify:acct-' .. user .. '","type":"identified","user_id":"u-' .. user ..
        '","identity":"acct-' .. user .. '","ts":"2026-12-01T10:00:30Z"}'
    else
      lines[i] = '{"event_id":"ev-' .. id .. '","type":"trial_started","user_id":"u-' .. id ..
        '","ts":"2026-12-01T10:01:00Z","product_id":"chorus.plus.annual"}'
    end
  end
  return wrk.format(nil, "/v1/events", nil, table.concat(lines, "\n"))
end
