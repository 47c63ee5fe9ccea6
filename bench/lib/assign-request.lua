-- POST /v1/assign with the running experiments of Experiments/, a new user id per request.
-- Expects `counter` and `thread_id` from bench/lib/wrk-common.lua, which it is appended to.
function init(args)
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end
function request()
  counter = counter + 1
  local body = '{"user_id":"bench-' .. thread_id .. '-' .. counter ..
    '","attributes":{"platform":"ios","country":"US","app_version":"2.3.0","new_user":true},"variables":{"userName":"Ana"},"signals":{"companion":"dog"}}'
  return wrk.format(nil, "/v1/assign", nil, body)
end
