/*
 * stats.c - statistics for the bench harness's raw CSV files.
 *
 * Input: a CSV with a header naming at least the columns round, variant,
 * metric, value, status, and run for `position` and `distance` (extra
 * columns are ignored; no quoted fields).  Only rows with status "ok" are
 * used.
 *
 *   stats summary FILE            per (variant, metric): n, mean, sample sd,
 *                                 median, min, max and the 95% confidence
 *                                 interval of the mean (Student t, n-1 df)
 *   stats ratio FILE BASE OTHER   per metric, over the rounds where both
 *                                 variants have a value: the geometric mean
 *                                 of the per-round ratios OTHER/BASE with a
 *                                 95% CI (t interval on the log ratios,
 *                                 exponentiated), the ratio of means, the sd
 *                                 of the log ratios, the CI's half-width in
 *                                 percent (the smallest effect these pairs
 *                                 resolve) and the pairs that sd needs for
 *                                 a half-width of 3% and of 10%
 *   stats adjust FILE BASE OTHER METRIC COVARIATE
 *                                 the ratio of METRIC adjusted for a
 *                                 covariate measured in the same runs
 *                                 (bench/run.sh's host_chase_us): per
 *                                 pair d = ln(OTHER/BASE) of METRIC and
 *                                 x = the same of COVARIATE; the least-
 *                                 squares line d = a + b x gives the ratio
 *                                 exp(a) the pair would show had both
 *                                 runs met the same covariate, with a 95%
 *                                 CI (t, n-2 df), b, the correlation r of
 *                                 d and x, the residual sd, the half-width
 *                                 and the pairs that residual sd needs for
 *                                 +/-3% (as ratio's, with n-1 df)
 *   stats robust FILE BASE OTHER METRIC
 *                                 distribution-free figures of one metric
 *                                 over the same pairs as ratio: the
 *                                 Hodges-Lehmann ratio (exp of the median
 *                                 of the Walsh averages (d_i + d_j) / 2,
 *                                 i <= j, of d = ln(OTHER/BASE)) with its
 *                                 95% CI from the exact null distribution
 *                                 of Wilcoxon's signed-rank statistic
 *                                 (coverage >= 95% if d is symmetric about
 *                                 its centre; normality is not assumed),
 *                                 the pairs where OTHER is higher and
 *                                 lower, and the two-sided exact sign
 *                                 test's p (ties left out).  A few runs a
 *                                 slow host halved move it little
 *   stats position FILE BASE OTHER METRIC
 *                                 whether a run's position in its round
 *                                 matters: least squares of ln(METRIC) on
 *                                 round + variant + position (the position
 *                                 from the run column: run minus the
 *                                 round's first run, over rows of any
 *                                 status, plus one); OTHER/BASE and each
 *                                 position against the first as ratios
 *                                 with 95% CIs from one residual sd
 *   stats distance FILE METRIC    whether a pair's noise grows with the
 *                                 time between its two runs: for every
 *                                 two variants and every round where both
 *                                 have a positive METRIC, d = ln(value
 *                                 ratio) minus that variant pair's mean d;
 *                                 grouped by the distance in runs between
 *                                 the two (run column), the pairs and the
 *                                 sd of d (each d^2 scaled by m/(m-1), m
 *                                 the variant pair's count: unbiased when
 *                                 all distances share one sd).  The
 *                                 variant pairs share runs: the groups are
 *                                 not independent samples
 *   stats rounds FILE BASE OTHER METRIC
 *                                 round,ratio for each round with both
 *                                 values (the dots of the ratio plot)
 *   stats tq DF                   the 0.975 quantile of Student's t
 *
 * FILE may be "-" for stdin.  Output is CSV on stdout; undefined figures
 * (sd or CI with one value, a log of a non-positive ratio) are empty fields.
 * Limits: lines up to 4095 bytes, names up to 63 bytes, no quoting.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_LEN 64

struct row {
	char variant[NAME_MAX_LEN];
	char metric[NAME_MAX_LEN];
	long round;
	long run;	/* -1 without a run column */
	double value;
};

static struct row *rows;
static size_t nrows;

/* each round's first run number over all rows, ok or not (for positions) */
struct first_run {
	long round, run;
};
static struct first_run *firsts;
static size_t nfirsts;

static void die(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "stats: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	exit(1);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: stats summary FILE\n"
		"       stats ratio FILE BASE OTHER\n"
		"       stats adjust FILE BASE OTHER METRIC COVARIATE\n"
		"       stats robust FILE BASE OTHER METRIC\n"
		"       stats position FILE BASE OTHER METRIC\n"
		"       stats distance FILE METRIC\n"
		"       stats rounds FILE BASE OTHER METRIC\n"
		"       stats tq DF\n"
		"FILE is a CSV with columns round,variant,metric,value,status (\"-\" = stdin);\n"
		"only status=ok rows count.  summary: n, mean, sd, median, min, max and the\n"
		"95%% CI of the mean per variant and metric.  ratio: per metric, geometric\n"
		"mean of per-round OTHER/BASE ratios with a 95%% t-interval on the logs, the\n"
		"effect the pairs resolve and the pairs needed for +/-3%% and +/-10%%.\n"
		"adjust: the ratio of METRIC per pair regressed on the ratio of COVARIATE\n"
		"in the same pairs; the intercept is the ratio at an equal covariate.\n"
		"robust: the Hodges-Lehmann ratio of METRIC with its Wilcoxon signed-rank\n"
		"95%% CI, the pairs where OTHER is higher and lower, the sign test's p.\n"
		"position: ln(METRIC) fitted as round + variant + position in the round;\n"
		"OTHER/BASE and each position against the first, with 95%% CIs.\n"
		"distance: sd of the centred log ratios of METRIC over every two variants,\n"
		"by the distance in runs between the pair's two runs.\n"
		"rounds: the per-round ratios of one metric.\n");
}

/* Two-sided 95% Student t quantile.  Table for df <= 30, then the
 * Cornish-Fisher expansion around the normal quantile (error < 1e-4). */
static double t975(long df)
{
	static const double tab[31] = { 0, 12.7062, 4.3027, 3.1824, 2.7764,
		2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281, 2.2010, 2.1788,
		2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
		2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484,
		2.0452, 2.0423 };
	double z = 1.959964, d = (double)df;
	double g1, g2, g3;

	if (df < 1)
		return NAN;
	if (df <= 30)
		return tab[df];
	g1 = (pow(z, 3) + z) / 4;
	g2 = (5 * pow(z, 5) + 16 * pow(z, 3) + 3 * z) / 96;
	g3 = (3 * pow(z, 7) + 19 * pow(z, 5) + 17 * pow(z, 3) - 15 * z) / 384;
	return z + g1 / d + g2 / (d * d) + g3 / (d * d * d);
}

/* Split a CSV line in place; returns the number of fields. */
static int split(char *line, char **f, int max)
{
	int n = 0;
	char *p = line;

	line[strcspn(line, "\r\n")] = '\0';
	while (n < max) {
		f[n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

static int col(char **f, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(f[i], name))
			return i;
	return -1;
}

static void note_run(long round, long run)
{
	size_t i;

	for (i = 0; i < nfirsts && firsts[i].round != round; i++)
		;
	if (i == nfirsts) {
		firsts = realloc(firsts, (nfirsts + 1) * sizeof(*firsts));
		if (!firsts)
			die("out of memory%s%s", "", "");
		firsts[nfirsts++] = (struct first_run){ round, run };
	} else if (run < firsts[i].run) {
		firsts[i].run = run;
	}
}

static void load(const char *path)
{
	char line[4096], *f[64];
	int n, c_round, c_var, c_met, c_val, c_st, c_run;
	long lineno = 1;
	size_t cap = 0;
	FILE *in = strcmp(path, "-") ? fopen(path, "r") : stdin;

	if (!in)
		die("cannot open %s: %s", path, strerror(errno));
	if (!fgets(line, sizeof(line), in))
		die("%s: empty file%s", path, "");
	n = split(line, f, 64);
	c_round = col(f, n, "round");
	c_var = col(f, n, "variant");
	c_met = col(f, n, "metric");
	c_val = col(f, n, "value");
	c_st = col(f, n, "status");
	c_run = col(f, n, "run");
	if (c_round < 0 || c_var < 0 || c_met < 0 || c_val < 0 || c_st < 0)
		die("%s: header must name round,variant,metric,value,status%s", path, "");
	while (fgets(line, sizeof(line), in)) {
		char *end, where[300];
		struct row r;

		lineno++;
		snprintf(where, sizeof(where), "%s:%ld", path, lineno);
		if (!strchr(line, '\n') && !feof(in))
			die("%s: line too long%s", where, "");
		n = split(line, f, 64);
		if (n == 1 && f[0][0] == '\0')
			continue;
		if (n <= c_round || n <= c_var || n <= c_met || n <= c_val || n <= c_st ||
		    n <= c_run)
			die("%s: too few fields%s", where, "");
		errno = 0;
		r.round = strtol(f[c_round], &end, 10);
		if (errno || end == f[c_round] || *end)
			die("%s: bad round '%s'", where, f[c_round]);
		r.run = -1;
		if (c_run >= 0) {
			r.run = strtol(f[c_run], &end, 10);
			if (errno || end == f[c_run] || *end || r.run < 0)
				die("%s: bad run '%s'", where, f[c_run]);
			note_run(r.round, r.run);
		}
		if (strcmp(f[c_st], "ok"))
			continue;
		if (strlen(f[c_var]) >= NAME_MAX_LEN || strlen(f[c_met]) >= NAME_MAX_LEN)
			die("%s: name too long%s", where, "");
		strcpy(r.variant, f[c_var]);
		strcpy(r.metric, f[c_met]);
		r.value = strtod(f[c_val], &end);
		if (end == f[c_val] || *end || !isfinite(r.value))
			die("%s: bad value '%s'", where, f[c_val]);
		if (nrows == cap) {
			cap = cap ? 2 * cap : 256;
			rows = realloc(rows, cap * sizeof(*rows));
			if (!rows)
				die("out of memory%s%s", "", "");
		}
		rows[nrows++] = r;
	}
	if (in != stdin)
		fclose(in);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct desc {
	size_t n;
	double mean, sd, median, min, max, lo, hi;
};

static struct desc describe(double *v, size_t n)
{
	struct desc d = { .n = n, .sd = NAN, .lo = NAN, .hi = NAN };
	double sum = 0, ss = 0;

	qsort(v, n, sizeof(*v), cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	d.mean = sum / n;
	d.min = v[0];
	d.max = v[n - 1];
	d.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	if (n >= 2) {
		for (size_t i = 0; i < n; i++)
			ss += (v[i] - d.mean) * (v[i] - d.mean);
		d.sd = sqrt(ss / (n - 1));
		d.lo = d.mean - t975(n - 1) * d.sd / sqrt(n);
		d.hi = d.mean + t975(n - 1) * d.sd / sqrt(n);
	}
	return d;
}

/* Print a number, or nothing if undefined; %.6g keeps CSVs readable. */
static void num(double x, const char *sep)
{
	if (isfinite(x))
		printf("%.6g", x);
	fputs(sep, stdout);
}

/* Has metric/variant pair (a, b) already been seen before row i? */
static int seen_before(size_t i, int with_variant)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(rows[j].metric, rows[i].metric) &&
		    (!with_variant || !strcmp(rows[j].variant, rows[i].variant)))
			return 1;
	return 0;
}

static void summary(void)
{
	double *v = malloc((nrows + 1) * sizeof(*v));

	printf("variant,metric,n,mean,sd,median,min,max,ci95_lo,ci95_hi\n");
	for (size_t i = 0; i < nrows; i++) {
		size_t n = 0;
		struct desc d;

		if (seen_before(i, 1))
			continue;
		for (size_t j = i; j < nrows; j++)
			if (!strcmp(rows[j].metric, rows[i].metric) &&
			    !strcmp(rows[j].variant, rows[i].variant))
				v[n++] = rows[j].value;
		d = describe(v, n);
		printf("%s,%s,%zu,", rows[i].variant, rows[i].metric, d.n);
		num(d.mean, ",");
		num(d.sd, ",");
		num(d.median, ",");
		num(d.min, ",");
		num(d.max, ",");
		num(d.lo, ",");
		num(d.hi, "\n");
	}
	free(v);
}

/* Row of (@variant, @metric, @round), or NULL; two such rows are an error. */
static const struct row *find_row(const char *variant, const char *metric, long round)
{
	const struct row *r = NULL;

	for (size_t i = 0; i < nrows; i++)
		if (rows[i].round == round && !strcmp(rows[i].variant, variant) &&
		    !strcmp(rows[i].metric, metric)) {
			if (r)
				die("two values for one round of %s/%s", variant, metric);
			r = &rows[i];
		}
	return r;
}

/* Value of (variant, metric, round); returns 0 if absent. */
static int lookup(const char *variant, const char *metric, long round, double *out)
{
	const struct row *r = find_row(variant, metric, round);

	if (r)
		*out = r->value;
	return r != NULL;
}

/*
 * Pairs needed for a 95% CI of +/-@pct percent on the ratio when the log
 * ratios have sd @sd (the t quantile depends on n, so search); 0 if more
 * than 100000.
 */
static long pairs_for(double sd, double pct)
{
	double want = log(1 + pct / 100);

	for (long n = 2; n <= 100000; n++)
		if (t975(n - 1) * sd / sqrt((double)n) <= want)
			return n;
	return 0;
}

/*
 * Is row @i BASE's value of METRIC in a round where OTHER has one too?  If
 * so, *@b and *@o are the two values and OTHER's row is returned (the
 * pairs of rounds, robust, adjust, distance); else NULL.
 */
static const struct row *pair_at(size_t i, const char *base, const char *other,
				 const char *metric, double *b, double *o)
{
	const struct row *r;

	if (strcmp(rows[i].variant, base) || strcmp(rows[i].metric, metric))
		return NULL;
	r = find_row(other, metric, rows[i].round);
	if (!r)
		return NULL;
	*b = rows[i].value;
	*o = r->value;
	return r;
}

static void rounds(const char *base, const char *other, const char *metric)
{
	double b, o;
	int any = 0;

	printf("round,ratio\n");
	for (size_t i = 0; i < nrows; i++) {
		if (!pair_at(i, base, other, metric, &b, &o))
			continue;
		any = 1;
		printf("%ld,", rows[i].round);
		num(b > 0 && o > 0 ? o / b : NAN, "\n");
	}
	if (!any)
		die("no round has both %s and %s", base, other);
}

static void ratio(const char *base, const char *other)
{
	double *lr = malloc((nrows + 1) * sizeof(*lr));
	int any_base = 0, any_other = 0;

	for (size_t i = 0; i < nrows; i++) {
		any_base |= !strcmp(rows[i].variant, base);
		any_other |= !strcmp(rows[i].variant, other);
	}
	if (!any_base)
		die("no ok rows for variant '%s'%s", base, "");
	if (!any_other)
		die("no ok rows for variant '%s'%s", other, "");
	printf("metric,pairs,ratio,ci95_lo,ci95_hi,ratio_of_means,sd_log,"
	       "resolves_pct,pairs_for_3pct,pairs_for_10pct\n");
	for (size_t i = 0; i < nrows; i++) {
		size_t n = 0;
		double sb = 0, so = 0, b, o, lsum = 0, lss = 0, m, sd = NAN, h = NAN;
		int bad = 0;

		if (seen_before(i, 0))
			continue;
		for (size_t j = i; j < nrows; j++) {
			if (strcmp(rows[j].metric, rows[i].metric) ||
			    strcmp(rows[j].variant, base))
				continue;
			if (!lookup(other, rows[i].metric, rows[j].round, &o))
				continue;
			b = rows[j].value;
			sb += b;
			so += o;
			if (b > 0 && o > 0)
				lr[n] = log(o / b);
			else
				bad = 1;
			n++;
		}
		if (!n)
			continue;
		printf("%s,%zu,", rows[i].metric, n);
		if (bad) {
			printf(",,,");
		} else {
			for (size_t k = 0; k < n; k++)
				lsum += lr[k];
			m = lsum / n;
			num(exp(m), ",");
			if (n >= 2) {
				for (size_t k = 0; k < n; k++)
					lss += (lr[k] - m) * (lr[k] - m);
				sd = sqrt(lss / (n - 1));
				h = t975(n - 1) * sd / sqrt(n);
				num(exp(m - h), ",");
				num(exp(m + h), ",");
			} else {
				printf(",,");
			}
		}
		num(sb != 0 ? so / sb : NAN, ",");
		num(sd, ",");
		num(isnan(h) ? NAN : 100 * (exp(h) - 1), ",");
		if (isnan(sd) || sd <= 0)
			printf(",\n");
		else
			printf("%ld,%ld\n", pairs_for(sd, 3), pairs_for(sd, 10));
	}
	free(lr);
}

/*
 * Paired analysis of covariance: d_i = ln(o/b) of @metric, x_i = ln(o/b) of
 * @covar, over the rounds where both variants have both.  The fitted
 * intercept a is ln of the ratio at x = 0 (both runs of the pair met the
 * same covariate); se(a) = s * sqrt(1/n + mean(x)^2 / Sxx), s the residual
 * sd with n - 2 degrees of freedom.
 */
static void adjust(const char *base, const char *other, const char *metric, const char *covar)
{
	double *d = malloc((nrows + 1) * sizeof(*d)), *x = malloc((nrows + 1) * sizeof(*x));
	double md = 0, mx = 0, sxx = 0, sxd = 0, sdd = 0, b, a, s, se, h, r;
	double mb, mo, cb, co;
	size_t n = 0;

	if (!d || !x)
		die("out of memory%s%s", "", "");
	for (size_t i = 0; i < nrows; i++) {
		if (!pair_at(i, base, other, metric, &mb, &mo) ||
		    !lookup(base, covar, rows[i].round, &cb) ||
		    !lookup(other, covar, rows[i].round, &co))
			continue;
		if (mb <= 0 || mo <= 0 || cb <= 0 || co <= 0)
			die("adjust: a value of %s or %s is not positive", metric, covar);
		d[n] = log(mo / mb);
		x[n] = log(co / cb);
		n++;
	}
	if (n < 3)
		die("adjust: %s needs 3 rounds with both variants' %s", metric, covar);
	for (size_t k = 0; k < n; k++) {
		md += d[k] / n;
		mx += x[k] / n;
	}
	for (size_t k = 0; k < n; k++) {
		sxx += (x[k] - mx) * (x[k] - mx);
		sxd += (x[k] - mx) * (d[k] - md);
		sdd += (d[k] - md) * (d[k] - md);
	}
	if (sxx <= 0)
		die("adjust: %s is the same in every pair; nothing to adjust for%s", covar, "");
	b = sxd / sxx;
	a = md - b * mx;
	s = sqrt(fmax(sdd - b * sxd, 0) / (n - 2));
	se = s * sqrt(1.0 / n + mx * mx / sxx);
	h = t975(n - 2) * se;
	r = sdd > 0 ? sxd / sqrt(sxx * sdd) : NAN;
	printf("metric,covariate,pairs,ratio,ci95_lo,ci95_hi,slope,r,sd_resid,"
	       "resolves_pct,pairs_for_3pct\n");
	printf("%s,%s,%zu,", metric, covar, n);
	num(exp(a), ",");
	num(exp(a - h), ",");
	num(exp(a + h), ",");
	num(b, ",");
	num(r, ",");
	num(s, ",");
	num(100 * (exp(h) - 1), ",");
	if (s > 0)
		printf("%ld\n", pairs_for(s, 3));
	else
		printf("\n");
	free(d);
	free(x);
}

/*
 * Wilcoxon's signed-rank statistic T on n pairs without ties, under the null
 * (each rank's sign a fair coin): after rank i, P(T = s) is half the old
 * P(T = s) plus half the old P(T = s - i).  Returns the largest c with
 * P(T <= c - 1) <= 0.025, 0 if there is none: the Walsh averages number c
 * and M + 1 - c (ascending, 1-based, M = n(n+1)/2) bound an interval of
 * coverage >= 95%.
 */
static size_t wilcoxon_c(size_t n)
{
	size_t m = n * (n + 1) / 2, c = 0;
	double *p = calloc(m + 1, sizeof(*p)), cum = 0;

	if (!p)
		die("out of memory%s%s", "", "");
	p[0] = 1;
	for (size_t i = 1; i <= n; i++) {
		for (size_t s = m; s >= i; s--)
			p[s] = (p[s] + p[s - i]) / 2;
		for (size_t s = 0; s < i; s++)
			p[s] /= 2;
	}
	while (c <= m && cum + p[c] <= 0.025)
		cum += p[c++];
	free(p);
	return c;
}

/* Two-sided exact sign test: k of n pairs on the rarer side, at 1/2. */
static double sign_p(size_t k, size_t n)
{
	double tail = 0;

	if (!n)
		return NAN;
	for (size_t j = 0; j <= k; j++)
		tail += exp(lgamma(n + 1.0) - lgamma(j + 1.0) - lgamma(n - j + 1.0) - n * log(2.0));
	return fmin(1, 2 * tail);
}

static void robust(const char *base, const char *other, const char *metric)
{
	double *d = malloc((nrows + 1) * sizeof(*d)), *w, o, b, med;
	size_t n = 0, m, c, hi = 0, lo = 0, k = 0;

	if (!d)
		die("out of memory%s%s", "", "");
	for (size_t i = 0; i < nrows; i++) {
		if (!pair_at(i, base, other, metric, &b, &o))
			continue;
		if (b <= 0 || o <= 0)
			die("robust: a value of %s is not positive%s", metric, "");
		d[n++] = log(o / b);
		hi += o > b;
		lo += o < b;
	}
	if (!n)
		die("robust: no round has both variants' %s%s", metric, "");
	m = n * (n + 1) / 2;
	w = malloc(m * sizeof(*w));
	if (!w)
		die("out of memory%s%s", "", "");
	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			w[k++] = (d[i] + d[j]) / 2;
	qsort(w, m, sizeof(*w), cmp_double);
	med = m % 2 ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2;
	c = wilcoxon_c(n);
	printf("metric,pairs,hl_ratio,ci95_lo,ci95_hi,other_higher,other_lower,sign_p\n");
	printf("%s,%zu,", metric, n);
	num(exp(med), ",");
	/* with 5 pairs or fewer no interval reaches 95%: empty fields */
	num(c ? exp(w[c - 1]) : NAN, ",");
	num(c ? exp(w[m - c]) : NAN, ",");
	printf("%zu,%zu,", hi, lo);
	num(sign_p(hi < lo ? hi : lo, hi + lo), "\n");
	free(w);
	free(d);
}

/* Position of row @r in its round: 1 for the round's first run. */
static long position_of(const struct row *r)
{
	for (size_t i = 0; i < nfirsts; i++)
		if (firsts[i].round == r->round)
			return r->run - firsts[i].run + 1;
	return -1;
}

/*
 * Invert the k x k matrix @a in place (Gauss-Jordan, partial pivoting);
 * returns 0 if it is singular.
 */
static int invert(double *a, size_t k)
{
	double *b = calloc(k * k, sizeof(*b)), t;
	int ok = 1;

	if (!b)
		die("out of memory%s%s", "", "");
	for (size_t i = 0; i < k; i++)
		b[i * k + i] = 1;
	for (size_t c = 0; c < k && ok; c++) {
		size_t p = c;

		for (size_t i = c + 1; i < k; i++)
			if (fabs(a[i * k + c]) > fabs(a[p * k + c]))
				p = i;
		if (fabs(a[p * k + c]) < 1e-9) {
			ok = 0;
			break;
		}
		for (size_t j = 0; j < k; j++) {
			t = a[c * k + j], a[c * k + j] = a[p * k + j], a[p * k + j] = t;
			t = b[c * k + j], b[c * k + j] = b[p * k + j], b[p * k + j] = t;
		}
		t = a[c * k + c];
		for (size_t j = 0; j < k; j++) {
			a[c * k + j] /= t;
			b[c * k + j] /= t;
		}
		for (size_t i = 0; i < k; i++) {
			if (i == c || a[i * k + c] == 0)
				continue;
			t = a[i * k + c];
			for (size_t j = 0; j < k; j++) {
				a[i * k + j] -= t * a[c * k + j];
				b[i * k + j] -= t * b[c * k + j];
			}
		}
	}
	memcpy(a, b, k * k * sizeof(*a));
	free(b);
	return ok;
}

/*
 * ln(METRIC) = round + variant + position + e, least squares.  The rounds
 * are swept out first (every value and indicator minus its round's mean:
 * the same estimates as with one term per round, Frisch-Waugh-Lovell),
 * leaving k = (variants - 1) + (positions - 1) indicators against BASE and
 * position 1.  Prints OTHER/BASE and each position against the first, as
 * ratios with 95% CIs (t, n - rounds - k df).
 */
static void position(const char *metric, const char *base, const char *other)
{
	char (*var)[NAME_MAX_LEN] = malloc((nrows + 1) * sizeof(*var));
	long *rnd = malloc((nrows + 1) * sizeof(*rnd)), np = 0;
	size_t nv = 0, nr = 0, n = 0, nbase = 0, k, io, *vi, *ri, *pi, df;
	double *y, *z, *a, *c, *bhat, *ym, *zm, *cnt, rss = 0, s, h;

	if (!var || !rnd)
		die("out of memory%s%s", "", "");
	if (!strcmp(base, other))
		die("position: BASE and OTHER are both '%s'%s", base, "");
	if (!nfirsts)
		die("position: the file has no run column%s%s", "", "");
	strcpy(var[nv++], base);
	vi = calloc(nrows + 1, sizeof(*vi));
	ri = calloc(nrows + 1, sizeof(*ri));
	pi = calloc(nrows + 1, sizeof(*pi));
	y = calloc(nrows + 1, sizeof(*y));
	if (!vi || !ri || !pi || !y)
		die("out of memory%s%s", "", "");
	/* index the observations: variant, round, position */
	for (size_t i = 0; i < nrows; i++) {
		size_t v, r;
		long p;

		if (strcmp(rows[i].metric, metric))
			continue;
		if (rows[i].value <= 0)
			die("position: a value of %s is not positive%s", metric, "");
		for (v = 0; v < nv && strcmp(var[v], rows[i].variant); v++)
			;
		if (v == nv)
			strcpy(var[nv++], rows[i].variant);
		for (r = 0; r < nr && rnd[r] != rows[i].round; r++)
			;
		if (r == nr)
			rnd[nr++] = rows[i].round;
		p = position_of(&rows[i]);
		if (p < 1)
			die("position: a row of %s has no run number%s", metric, "");
		np = p > np ? p : np;
		nbase += v == 0;
		vi[n] = v, ri[n] = r, pi[n] = p, y[n] = log(rows[i].value);
		n++;
	}
	for (io = 1; io < nv && strcmp(var[io], other); io++)
		;
	if (!nbase || io == nv)
		die("position: no ok rows of %s for variant '%s'", metric, nbase ? other : base);
	k = (nv - 1) + (np - 1);
	if (n <= nr + k)
		die("position: too few runs of %s for the model%s", metric, "");
	df = n - nr - k;
	z = calloc(n * k, sizeof(*z));
	ym = calloc(nr, sizeof(*ym));
	zm = calloc(nr * k, sizeof(*zm));
	cnt = calloc(nr, sizeof(*cnt));
	a = calloc(k * k, sizeof(*a));
	c = calloc(k, sizeof(*c));
	bhat = calloc(k, sizeof(*bhat));
	if (!z || !ym || !zm || !cnt || !a || !c || !bhat)
		die("out of memory%s%s", "", "");
	/* indicators: columns 0..nv-2 variants 1..nv-1, then positions 2..np */
	for (size_t i = 0; i < n; i++) {
		if (vi[i])
			z[i * k + vi[i] - 1] = 1;
		if (pi[i] > 1)
			z[i * k + (nv - 1) + pi[i] - 2] = 1;
		cnt[ri[i]]++;
		ym[ri[i]] += y[i];
		for (size_t j = 0; j < k; j++)
			zm[ri[i] * k + j] += z[i * k + j];
	}
	for (size_t r = 0; r < nr; r++) {
		ym[r] /= cnt[r];
		for (size_t j = 0; j < k; j++)
			zm[r * k + j] /= cnt[r];
	}
	for (size_t i = 0; i < n; i++) {
		y[i] -= ym[ri[i]];
		for (size_t j = 0; j < k; j++)
			z[i * k + j] -= zm[ri[i] * k + j];
		for (size_t j = 0; j < k; j++) {
			c[j] += z[i * k + j] * y[i];
			for (size_t l = 0; l < k; l++)
				a[j * k + l] += z[i * k + j] * z[i * k + l];
		}
	}
	if (!invert(a, k))
		die("position: variant and position cannot be told apart in %s "
		    "(a fixed order, or a position no variant shares)%s", metric, "");
	for (size_t j = 0; j < k; j++)
		for (size_t l = 0; l < k; l++)
			bhat[j] += a[j * k + l] * c[l];
	for (size_t i = 0; i < n; i++) {
		double e = y[i];

		for (size_t j = 0; j < k; j++)
			e -= z[i * k + j] * bhat[j];
		rss += e * e;
	}
	s = sqrt(rss / df);
	printf("term,ratio,ci95_lo,ci95_hi,runs,df,sd_resid\n");
	for (size_t j = 0; j < k; j++) {
		if (j < nv - 1 && j != io - 1)
			continue;
		if (j < nv - 1)
			printf("%s/%s,", other, base);
		else
			printf("position %zu/1,", j - (nv - 1) + 2);
		h = t975((long)df) * s * sqrt(a[j * k + j]);
		num(exp(bhat[j]), ",");
		num(exp(bhat[j] - h), ",");
		num(exp(bhat[j] + h), ",");
		printf("%zu,%zu,", n, df);
		num(s, "\n");
	}
	free(var), free(rnd), free(vi), free(ri), free(pi), free(y), free(z);
	free(ym), free(zm), free(cnt), free(a), free(c), free(bhat);
}

static void distance(const char *metric)
{
	const char **var = malloc((nrows + 1) * sizeof(*var));
	double *d = malloc((nrows + 1) * sizeof(*d)), *ss = NULL;
	long *dist = malloc((nrows + 1) * sizeof(*dist));
	size_t nv = 0, cap = 0, *cnt = NULL;

	if (!var || !d || !dist)
		die("out of memory%s%s", "", "");
	for (size_t i = 0; i < nrows; i++) {
		size_t k;

		if (strcmp(rows[i].metric, metric))
			continue;
		if (rows[i].run < 0)
			die("distance needs a run column%s%s", "", "");
		for (k = 0; k < nv && strcmp(var[k], rows[i].variant); k++)
			;
		if (k == nv)
			var[nv++] = rows[i].variant;
	}
	if (nv < 2)
		die("distance: fewer than two variants have ok rows of %s%s", metric, "");
	for (size_t a = 0; a < nv; a++) {
		for (size_t b = a + 1; b < nv; b++) {
			size_t m = 0;
			double mean = 0;

			for (size_t i = 0; i < nrows; i++) {
				const struct row *o;
				double vb, vo;

				o = pair_at(i, var[a], var[b], metric, &vb, &vo);
				if (!o || vb <= 0 || vo <= 0)
					continue;
				d[m] = log(vo / vb);
				dist[m] = labs(o->run - rows[i].run);
				mean += d[m++];
			}
			if (m < 2)
				continue;
			mean /= m;
			for (size_t k = 0; k < m; k++) {
				if ((size_t)dist[k] >= cap) {
					size_t nc = dist[k] + 1;

					ss = realloc(ss, nc * sizeof(*ss));
					cnt = realloc(cnt, nc * sizeof(*cnt));
					if (!ss || !cnt)
						die("out of memory%s%s", "", "");
					for (size_t g = cap; g < nc; g++)
						ss[g] = 0, cnt[g] = 0;
					cap = nc;
				}
				ss[dist[k]] += (d[k] - mean) * (d[k] - mean) * m / (m - 1);
				cnt[dist[k]]++;
			}
		}
	}
	if (!cap)
		die("distance: no two variants share two rounds with %s%s", metric, "");
	printf("distance,pairs,sd_log\n");
	for (size_t g = 0; g < cap; g++) {
		if (!cnt[g])
			continue;
		printf("%zu,%zu,", g, cnt[g]);
		num(sqrt(ss[g] / cnt[g]), "\n");
	}
	free(var), free(d), free(dist), free(ss), free(cnt);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "summary")) {
		load(argv[2]);
		if (!nrows)
			die("%s: no rows with status ok%s", argv[2], "");
		summary();
	} else if (argc == 5 && !strcmp(argv[1], "ratio")) {
		load(argv[2]);
		ratio(argv[3], argv[4]);
	} else if (argc == 7 && !strcmp(argv[1], "adjust")) {
		load(argv[2]);
		adjust(argv[3], argv[4], argv[5], argv[6]);
	} else if (argc == 6 && !strcmp(argv[1], "robust")) {
		load(argv[2]);
		robust(argv[3], argv[4], argv[5]);
	} else if (argc == 6 && !strcmp(argv[1], "position")) {
		load(argv[2]);
		position(argv[5], argv[3], argv[4]);
	} else if (argc == 4 && !strcmp(argv[1], "distance")) {
		load(argv[2]);
		distance(argv[3]);
	} else if (argc == 6 && !strcmp(argv[1], "rounds")) {
		load(argv[2]);
		rounds(argv[3], argv[4], argv[5]);
	} else if (argc == 3 && !strcmp(argv[1], "tq")) {
		char *end;
		long df = strtol(argv[2], &end, 10);

		if (*end || end == argv[2] || df < 1)
			die("tq: DF must be a whole number >= 1, got '%s'%s", argv[2], "");
		printf("%.4f\n", t975(df));
	} else {
		usage(stderr);
		return 2;
	}
	return 0;
}
