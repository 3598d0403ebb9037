-- wrk-hist.lua - wrk script (wrk -s) of the web workload: after the run,
-- print every latency wrk recorded as "latency_hist USEC COUNT" lines, the
-- histogram wrk's own percentiles come from, so that bench/report.sh can
-- pool a variant's runs into percentiles that stand on enough requests.
-- Limits: wrk's histogram may hold a few responses more than its request
-- count (those that completed while the threads stopped).
done = function(summary, latency, requests)
	for i = 1, #latency do
		local usec, count = latency(i)
		io.write(string.format("latency_hist %d %d\n", usec, count))
	end
end
