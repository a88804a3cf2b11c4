/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu report: draws the JSON of `syncemu model`, `run`, `sweep` and `validate` embedded in
 * the page (the script element #syncemu-data) with Chart.js.  Every chart states the scenario,
 * the seed, the steps and the queue limits it was made with.  Charts are kept in
 * window.syncemuCharts by id and sliders in window.syncemuSliders, so that a test can move a
 * slider and read what changed through the DOM.
 */
'use strict';

(function () {
	const charts = {};
	const sliders = {};
	window.syncemuCharts = charts;
	window.syncemuSliders = sliders;
	const COLORS = ['#2b6cb0', '#c05621', '#2f855a', '#b83280', '#6b46c1', '#b7791f', '#319795',
			'#e53e3e', '#4a5568', '#805ad5', '#dd6b20', '#38a169'];
	const STAGE_COLORS = { optics: '#6b46c1', compute: '#c05621', fpga: '#2f855a', port: '#2b6cb0' };
	const color = (i) => COLORS[i % COLORS.length];

	function el(tag, attrs, ...kids) {
		const e = document.createElement(tag);
		for (const [k, v] of Object.entries(attrs || {})) {
			if (k === 'class')
				e.className = v;
			else
				e.setAttribute(k, v);
		}
		for (const k of kids)
			if (k !== null && k !== undefined)
				e.append(k);
		return e;
	}

	/* numbers for people: 3 significant digits, SI prefixes for rates and counts */
	function fmt(x, digits) {
		if (x === null || x === undefined || !isFinite(x))
			return 'n/a';
		return Number(x).toPrecision(digits || 3).replace(/\.?0+e/, 'e').replace(/(\.\d*?)0+$/, '$1')
			.replace(/\.$/, '');
	}
	function si(x, unit) {
		if (x === null || x === undefined || !isFinite(x))
			return 'n/a';
		const p = [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
		for (const [m, s] of p)
			if (Math.abs(x) >= m)
				return fmt(x / m) + ' ' + s + unit;
		return fmt(x) + ' ' + unit;
	}
	function bytes(x) {
		return x === null || x === undefined ? 'unlimited' : si(x, 'B');
	}
	const mean = (a) => a.reduce((s, v) => s + v, 0) / (a.length || 1);
	const finite = (a) => a.filter((v) => v !== null && isFinite(v));

	/* "log" where a positive range spans 20 x or more */
	function axisType(values) {
		const v = finite(values).filter((x) => x > 0);
		if (v.length < 2 || v.length < finite(values).length)
			return 'linear';
		return Math.max(...v) / Math.min(...v) >= 20 ? 'logarithmic' : 'linear';
	}

	/* a scenario's settings as every chart states them */
	function statesOf(sc) {
		if (!sc)
			return '';
		const q = sc.queues_bytes;
		const parts = ['scenario ' + sc.name];
		if (sc.seed !== undefined)
			parts.push('seed ' + sc.seed);
		if (sc.steps !== undefined)
			parts.push(sc.steps + ' steps (' + (sc.warmup || 0) + ' warm-up)');
		if (sc.load !== undefined)
			parts.push('background load ' + fmt(sc.load));
		if (sc.wan_bandwidth_Bps !== undefined)	/* in bit/s, as network engineers read it */
			parts.push('WAN ' + si(8 * sc.wan_bandwidth_Bps, 'bit/s') + ' (' +
				   si(sc.wan_bandwidth_Bps, 'B/s') + '), ' + fmt(sc.wan_latency_s * 1e6) + ' us');
		if (q)
			parts.push('queues: NIC ' + bytes(q.nic) + ', port ' + bytes(q.port) + ', switch ' +
				   bytes(q.switch) + ', WAN ' + bytes(q.wan));
		return parts.join(' · ');
	}

	function figure(parent, id, title, states, caption) {
		const canvas = el('canvas', { id: id + '-canvas', role: 'img', 'aria-label': title });
		const fig = el('figure', { class: 'chart', id: id },
			       el('h3', {}, title), el('div', { class: 'states' }, states),
			       el('div', { class: 'canvas' }, canvas),
			       caption ? el('figcaption', {}, caption) : null);
		parent.append(fig);
		return { fig, canvas };
	}

	function chart(id, canvas, config) {
		config.options = Object.assign({
			animation: false,
			responsive: true,
			maintainAspectRatio: false,
			interaction: { mode: 'nearest', intersect: false },
			plugins: { legend: { position: 'bottom', labels: { boxWidth: 14 } } },
		}, config.options || {});
		charts[id] = new Chart(canvas.getContext('2d'), config);
		return charts[id];
	}

	/*
	 * Draw @what with @fn into @parent; if the JSON is not what it needs (a syncemu-shaped
	 * document whose member is null, of another type, missing), leave out what it had begun
	 * (figures, charts, sliders) and say on the page what could not be drawn and why, so that
	 * everything else still is.
	 */
	function guard(parent, what, fn) {
		const kids = parent.children.length;
		const had = new Set(Object.keys(charts));
		try {
			fn();
		} catch (e) {
			for (const id of Object.keys(charts))
				if (!had.has(id)) {
					charts[id].destroy();
					delete charts[id];
				}
			while (parent.children.length > kids)
				parent.lastElementChild.remove();
			for (const id of Object.keys(sliders))
				if (!document.body.contains(sliders[id]))
					delete sliders[id];
			parent.append(el('p', { class: 'error not-drawn' }, 'Not drawn: ' + what + ' (' +
					 (e instanceof TypeError || e instanceof RangeError ?
					  'the JSON has not what it needs: ' : '') + e.message + ').'));
		}
	}

	/* the members of @arr that are objects; a note on @parent names the others by JSON pointer */
	function objects(parent, arr, pointer, what) {
		const bad = [];
		const ok = (arr || []).filter((x, i) => {
			const good = x !== null && typeof x === 'object' && !Array.isArray(x);
			if (!good)
				bad.push(pointer + '/' + i);
			return good;
		});
		const kind = (x) => x === null ? 'null' : Array.isArray(x) ? 'an array' : 'a ' + typeof x;
		if (!Array.isArray(arr))
			parent.append(el('p', { class: 'error not-drawn' }, 'Not drawn: ' + pointer + ' (' +
					 kind(arr) + ', not an array of ' + what + ').'));
		else if (bad.length)
			parent.append(el('p', { class: 'error not-drawn' }, 'Not drawn: ' + bad.map((b) =>
				b + ' (' + kind(arr[Number(b.split('/').pop())]) + ')').join(', ') + ': not ' + what + '.'));
		return ok;
	}

	function axis(type, title, extra) {
		return Object.assign({ type: type, title: { display: true, text: title } }, extra || {});
	}

	/* a slider over @values (indices), its label; calls @on(index) at once and on input */
	function slider(parent, id, label, values, start, show, on) {
		const input = el('input', { type: 'range', id: id, min: 0, max: values.length - 1,
					    step: 1, value: start });
		const out = el('output', { for: id, id: id + '-value' });
		parent.append(el('div', { class: 'control' }, el('label', { for: id }, label), input, out));
		const apply = () => {
			const i = Number(input.value);
			out.textContent = show(values[i]);
			on(i);
		};
		input.addEventListener('input', apply);
		sliders[id] = input;
		apply();
		return input;
	}

	function nearestIndex(xs, x) {
		let best = 0;
		for (let i = 1; i < xs.length; i++)
			if (Math.abs(Math.log(xs[i] / x)) < Math.abs(Math.log(xs[best] / x)))
				best = i;
		return best;
	}

	function readout(table, head, rows, bestRow) {
		table.replaceChildren(el('tr', {}, ...head.map((h) => el('th', {}, h))),
				      ...rows.map((r, i) => el('tr', i === bestRow ? { class: 'best' } : {},
							       ...r.map((c) => el('td', {}, c)))));
	}

	/* ---- model -------------------------------------------------------------------- */

	function label(s) {
		return s.budget && s.budget !== '-' ? s.variant + '[' + s.budget + ']' : s.variant;
	}

	function modelSection(sec, d, n) {
		const sc = d.scenario;
		const cv = d.curves;
		if (!cv) {
			sec.append(el('p', { class: 'error' }, 'This JSON has no "curves": made by an ' +
				      'earlier syncemu; run syncemu model --json again.'));
			return;
		}
		const w = cv.wan_bandwidth;
		const steps = w.series.map((s) => label(s) + ' ' + fmt(s.steps, 4)).join(', ');
		const states = 'scenario ' + sc.name + ' · closed form (no seed, no queues) · steps to ' +
			'target: ' + steps + ' · WAN latency ' + fmt(sc.wan.latency_s * 1e6) + ' us';
		const grid = el('div', { class: 'grid' });
		sec.append(grid);

		/* 7a: time to target against the WAN's bandwidth */
		guard(grid, 'time to target against WAN bandwidth (/curves/wan_bandwidth)', () => {
			const id = 'model' + n + '-bw';
			const { fig, canvas } = figure(grid, id, 'Time to target against WAN bandwidth (the deck\'s 7a)',
						       states, 'Lines: the closed form at ' + w.x_Bps.length +
						       ' bandwidths. Diamonds: the break-evens (time to target equal). ' +
						       'The WAN slider moves the vertical line and the table; the ' +
						       'budget slider moves the dashed curves of the module variants.');
			const xs = w.x_Bps.map((x) => x / 1e9);
			const ds = w.series.map((s, i) => ({
				label: label(s), data: xs.map((x, k) => ({ x: x, y: s.time_to_target_s[k] })),
				borderColor: color(i), backgroundColor: color(i), pointRadius: 0, borderWidth: 2,
			}));
			/* break-evens: measured steps, where both contenders are drawn */
			const be = ((d.tables.breakeven || {}).rows || []).filter((r) =>
				r.steps_basis === 'measured' && r.breakeven_gbps !== null);
			const beData = [];
			for (const r of be) {
				const s = w.series.find((x) => label(x) === (r.budget !== '-' ? r.variant + '[' + r.budget + ']' : r.variant));
				if (!s)
					continue;
				const k = nearestIndex(xs, r.breakeven_gbps);
				beData.push({ x: r.breakeven_gbps, y: s.time_to_target_s[k], pair: r.variant + ' = ' + r.against });
			}
			ds.push({ label: 'break-even', data: beData, type: 'scatter', pointStyle: 'rectRot',
				  pointRadius: 6, borderColor: '#1d2330', backgroundColor: '#f6e05e' });
			const fam = w.budget_family;
			const modVars = [...new Set(fam.map((f) => f.variant))];
			const famIdx = {};
			modVars.forEach((v, j) => {
				famIdx[v] = ds.length;
				ds.push({ label: v + ' at the slider\'s budget', data: [], borderColor: color(6 + j),
					  borderDash: [6, 4], pointRadius: 0, borderWidth: 2 });
			});
			const markerIdx = ds.length;
			ds.push({ label: 'WAN slider', data: [], borderColor: '#e53e3e', pointRadius: 0,
				  borderWidth: 1.5 });
			const allY = finite(w.series.flatMap((s) => s.time_to_target_s));
			const ch = chart(id, canvas, { type: 'line', data: { datasets: ds }, options: {
				parsing: false,
				scales: { x: axis('logarithmic', 'WAN bandwidth, GB/s (log)'),
					  y: axis('logarithmic', 'time to target, s (log)') },
				plugins: { tooltip: { callbacks: { label: (c) => (c.raw.pair || c.dataset.label) + ': ' +
					fmt(c.raw.y) + ' s at ' + fmt(c.raw.x) + ' GB/s' } } } } });
			const yLo = Math.min(...allY), yHi = Math.max(...allY);
			const table = el('table', { class: 'readout', id: id + '-readout' });
			slider(fig, id + '-wan', 'WAN bandwidth', xs, nearestIndex(xs, w.scenario_Bps / 1e9),
			       (x) => fmt(x) + ' GB/s', (i) => {
				ch.data.datasets[markerIdx].data = [{ x: xs[i], y: yLo }, { x: xs[i], y: yHi }];
				const rows = w.series.map((s) => [label(s), fmt(s.time_to_target_s[i]) + ' s']);
				let best = 0;
				w.series.forEach((s, k) => {
					if (s.time_to_target_s[i] < w.series[best].time_to_target_s[i])
						best = k;
				});
				readout(table, ['at ' + fmt(xs[i]) + ' GB/s', 'time to target'], rows, best);
				ch.update();
			});
			if (fam.length) {
				const budgets = w.budgets_flops;
				slider(fig, id + '-budget', 'module budget', budgets, Math.floor(budgets.length / 2),
				       (b) => si(b, 'FLOP/s'), (j) => {
					for (const v of modVars) {
						const f = fam.find((x) => x.variant === v && x.budget_flops === budgets[j]);
						ch.data.datasets[famIdx[v]].data = xs.map((x, k) => ({ x: x, y: f.time_to_target_s[k] }));
						ch.data.datasets[famIdx[v]].label = v + ' at ' + si(budgets[j], 'FLOP/s');
					}
					ch.update();
				});
			}
			fig.append(table);
		});

		/* the link kernel: the module's stages against its compute budget */
		const kv = objects(grid, (cv.kernel || {}).variants, '/curves/kernel/variants', 'variants');
		kv.forEach((k, j) => guard(grid, 'the link kernel of /curves/kernel/variants/' + j, () => {
			const kid = 'model' + n + '-kernel' + j;
			const bx = cv.kernel.x_flops.map((x) => x / 1e9);
			const f = figure(grid, kid, 'Link kernel of ' + k.variant + ': the module\'s stages against its compute budget',
					 states, 'Each stage\'s time for the step\'s stream; the slowest binds (the ' +
					 'module pipelines them). Binding at the lowest budget: ' + k.binding[0] +
					 ', at the highest: ' + k.binding[k.binding.length - 1] + '.');
			const sds = cv.kernel.stages.map((st) => ({
				label: st, data: bx.map((x, i) => ({ x: x, y: k.stage_s[st][i] * 1e3 })),
				borderColor: STAGE_COLORS[st], backgroundColor: STAGE_COLORS[st], pointRadius: 0,
				borderWidth: 2,
			}));
			sds.push({ label: 'step (' + k.variant + ')', data: bx.map((x, i) => ({ x: x, y: k.step_s[i] * 1e3 })),
				   borderColor: '#1d2330', borderDash: [4, 3], pointRadius: 0, borderWidth: 1.5 });
			const positive = sds.flatMap((s) => s.data.map((p) => p.y)).filter((y) => y > 0);
			chart(kid, f.canvas, { type: 'line', data: { datasets: sds.map((s) => Object.assign(s, {
				data: s.data.filter((p) => p.y > 0) })) }, options: { parsing: false,
				scales: { x: axis('logarithmic', 'module compute budget, GFLOP/s (log)'),
					  y: axis('logarithmic', 'time per step, ms (log)', { min: Math.min(...positive) }) },
				plugins: { tooltip: { callbacks: { afterLabel: (c) => 'binding: ' +
					k.binding[nearestIndex(bx, c.raw.x)] } } } } });
		}));

		/* bit planes (section 8) */
		const planes = (d.tables.planes || {}).rows || [];
		if (planes.length) guard(grid, 'the bit planes (/tables/planes)', () => {
			const pid = 'model' + n + '-planes';
			const f = figure(grid, pid, 'Bit planes: time to target and the binding stage (section 8)', states,
					 'Bars: time to target at each number of bit planes; the label names the binding stage.');
			const groups = [...new Set(planes.map((r) => label(r)))];
			const px = [...new Set(planes.map((r) => r.planes))].sort((a, b) => a - b);
			chart(pid, f.canvas, { type: 'bar', data: { labels: px.map(String), datasets: groups.map((g, i) => ({
				label: g, backgroundColor: color(i),
				data: px.map((p) => { const r = planes.find((x) => label(x) === g && x.planes === p);
						      return r ? r.time_s : null; }),
				binding: px.map((p) => { const r = planes.find((x) => label(x) === g && x.planes === p);
							 return r ? r.binding : ''; }),
			})) }, options: { scales: { x: axis('category', 'bit planes'),
				y: axis(axisType(planes.map((r) => r.time_s)), 'time to target, s') },
				plugins: { tooltip: { callbacks: { afterLabel: (c) => 'binding: ' +
					c.dataset.binding[c.dataIndex] } } } } });
		});

		/* energy */
		const en = (d.tables.energy || {}).rows || [];
		if (en.length) guard(grid, 'the energy (/tables/energy)', () => {
			const eid = 'model' + n + '-energy';
			const f = figure(grid, eid, 'Energy per step, by where it goes', states,
					 'Stacked: GPU static and FLOP energy, links, module. To target: ' +
					 en.map((r) => label(r) + ' ' + fmt(r.to_target_kj) + ' kJ').join(', ') + '.');
			const parts = [['gpu_static_j', 'GPU static'], ['gpu_dynamic_j', 'GPU FLOP'],
				       ['link_j', 'links'], ['module_j', 'module']];
			chart(eid, f.canvas, { type: 'bar', data: { labels: en.map(label), datasets: parts.map(([k, t], i) => ({
				label: t, data: en.map((r) => r[k]), backgroundColor: color(i) })) },
				options: { scales: { x: { stacked: true }, y: axis('linear', 'J per step', { stacked: true }) } } });
		});
	}

	/* ---- run ---------------------------------------------------------------------- */

	function runSection(sec, d, n) {
		const states = statesOf(d.scenario);
		const grid = el('div', { class: 'grid' });
		sec.append(grid);
		const ptr = (r) => '/runs/' + d.runs.indexOf(r);
		const all = objects(sec, d.runs, '/runs', 'runs');
		const runs = all.filter((r) => r.ok && r.steps);
		const left = all.filter((r) => !runs.includes(r));
		if (left.length && runs.length)
			sec.append(el('p', { class: 'error not-drawn' }, 'Not drawn: ' + left.map((r) => ptr(r) + ' (' +
				(r.label || 'a run') + ': ' + (r.ok ? 'no steps' : 'it did not complete a step') + ')').join(', ') + '.'));
		if (!runs.length) {
			sec.append(el('p', { class: 'error' }, 'No run in this file completed a step.'));
			return;
		}
		const changesOf = (r) => r.changes || [];
		/* --background-only: no sync, so no step; its WAN queues, transfers and drops are drawn */
		const stepRuns = runs.filter((r) => r.step_ms && r.steps.rows && r.steps.rows.length);
		for (const r of runs.filter((x) => typeof x.background_only_s === 'number'))
			sec.insertBefore(el('p', { class: 'note' }, 'Run ' + r.label + ' (' + ptr(r) + '): the ' +
				'background alone for ' + fmt(r.background_only_s * 1e3) + ' ms of emulated time, ' +
				'no sync: no step to draw; its WAN queues, transfers and drops are below.'), grid);

		/* each step beside the packet and fluid models */
		stepRuns.forEach((r, j) => guard(grid, 'the steps of ' + ptr(r), () => {
			const id = 'run' + n + '-steps' + j;
			const rows = r.steps.rows;
			const f = figure(grid, id, 'Run ' + r.label + ': each step against the models', states,
					 'Status ' + r.status + '. ' + (r.model ? 'Under load: the emulated mean ' +
					  fmt(r.step_ms.mean, 4) + ' ms against the fluid shared-WAN model\'s PS ' +
					  fmt(r.model.ps_mean_ms, 4) + ' ms and FIFO ' + fmt(r.model.fifo_mean_ms, 4) +
					  ' ms over as many syncs (zero load: ' + fmt(r.model.zero_load_ms, 4) + ' ms). ' :
					  r.compared_steps + ' steps compared with the packet closed form (max ' +
					  'difference ' + fmt(r.max_rel_diff) + ' relative). ') +
					 (changesOf(r).length ? changesOf(r).length + ' live change(s), marked. ' : '') +
					 (r.steps_kept.of > rows.length ? 'Steps kept: first ' + r.steps_kept.first +
					  ', last ' + r.steps_kept.last + ' of ' + r.steps_kept.of + '.' : ''));
			const ds = [
				{ label: 'emulated', data: rows.map((s) => ({ x: s.step, y: s.emulated_ms })),
				  borderColor: color(0), backgroundColor: color(0), pointRadius: rows.length > 100 ? 0 : 2,
				  borderWidth: 1.5 },
				{ label: 'packet closed form', data: rows.map((s) => ({ x: s.step, y: s.packet_model_ms })),
				  borderColor: color(1), borderDash: [6, 4], pointRadius: 0, borderWidth: 1.5 },
				{ label: r.model ? 'fluid model (zero load)' : 'fluid model', data: rows.map((s) => ({ x: s.step, y: s.fluid_ms })),
				  borderColor: color(2), borderDash: [2, 3], pointRadius: 0, borderWidth: 1.5 },
			];
			if (r.model) {	/* under load: the fluid shared-WAN model's means over as many syncs */
				const x0 = rows[0].step, x1 = rows[rows.length - 1].step;
				ds.push({ label: 'model PS (mean)', data: [{ x: x0, y: r.model.ps_mean_ms }, { x: x1, y: r.model.ps_mean_ms }],
					  borderColor: color(3), borderDash: [8, 4], pointRadius: 0, borderWidth: 1.5 });
				ds.push({ label: 'model FIFO (mean)', data: [{ x: x0, y: r.model.fifo_mean_ms }, { x: x1, y: r.model.fifo_mean_ms }],
					  borderColor: color(4), borderDash: [3, 3], pointRadius: 0, borderWidth: 1.5 });
				ds.push({ label: 'emulated (mean)', data: [{ x: x0, y: r.step_ms.mean }, { x: x1, y: r.step_ms.mean }],
					  borderColor: color(0), pointRadius: 0, borderWidth: 1 });
			}
			const ys = finite(ds.flatMap((d) => d.data.map((p) => p.y)));
			for (const c of changesOf(r))
				if (c.step !== null)
					ds.push({ label: 'set ' + c.key + ' = ' + fmt(c.value) + ' (step ' + c.step + ')',
						  data: [{ x: c.step, y: Math.min(...ys) }, { x: c.step, y: Math.max(...ys) }],
						  borderColor: '#e53e3e', pointRadius: 0, borderWidth: 1 });
			chart(id, f.canvas, { type: 'line', data: { datasets: ds }, options: { parsing: false,
				scales: { x: axis('linear', 'step', { ticks: { precision: 0 } }), y: axis('linear', 'step time, ms') } } });
		}));

		/* the shares as stacked bars: their mean, or one step's (the slider) */
		if (stepRuns.length) guard(grid, 'the shares of the step (/runs/*/steps)', () => {
			const runs = stepRuns;
			const share = ['compute', 'intra', 'wan', 'module_port', 'module_optics', 'module_compute', 'module_fpga'];
			const sid = 'run' + n + '-shares';
			const fs = figure(grid, sid, 'Where the step went: share of each resource', states,
					  'The share of the step each resource held (%): the mean over the steps kept, ' +
					  'or one step\'s, picked with the slider.');
			const stepNos = [...new Set(runs.flatMap((r) => r.steps.rows.map((s) => s.step)))].sort((a, b) => a - b);
			const sharesAt = (k, key) => runs.map((r) => {
				if (k === null)
					return mean(r.steps.rows.map((s) => s[key] || 0));
				const s = r.steps.rows.find((x) => x.step === k);
				return s ? s[key] || 0 : null;
			});
			const sch = chart(sid, fs.canvas, { type: 'bar', data: { labels: runs.map((r) => r.label), datasets: share.map((k, i) => ({
				label: k.replace('_', ' '), backgroundColor: color(i), data: sharesAt(null, k) })) },
				options: { scales: { x: { stacked: true }, y: axis('linear', 'share of the step, %', { stacked: true, max: 100 }) } } });
			const picks = [null].concat(stepNos);
			slider(fs.fig, sid + '-step', 'step', picks, 0, (k) => k === null ? 'mean of the steps' : 'step ' + k, (i) => {
				sch.data.datasets.forEach((ds, j) => { ds.data = sharesAt(picks[i], share[j]); });
				sch.update();
			});
		});

		/* the WAN queues over time */
		const qruns = runs.filter((r) => r.wan_queues);
		qruns.forEach((r, j) => guard(grid, 'the WAN queues of ' + ptr(r), () => {
			const id = 'run' + n + '-queue' + j;
			const f = figure(grid, id, 'Run ' + r.label + ': WAN queue occupancy over time', states,
					 'Bytes queued at each WAN link\'s drop-tail FIFO (limit ' + bytes(d.scenario.queues_bytes.wan) +
					 '), one sample in ' + Object.values(r.wan_queues)[0].every_sample + ' kept' +
					 (changesOf(r).length ? '; red lines: live changes.' : '.'));
			const ds = Object.entries(r.wan_queues).map(([name, q], i) => ({
				label: name, data: q.t_s.map((t, k) => ({ x: t * 1e3, y: q.bytes[k] / 1e3 })),
				borderColor: color(i), pointRadius: 0, borderWidth: 1, stepped: true,
			}));
			const ymax = Math.max(1, ...ds.flatMap((s) => s.data.map((p) => p.y)));
			for (const c of changesOf(r))
				ds.push({ label: 'set ' + c.key + ' at ' + fmt(c.at_ms) + ' ms',
					  data: [{ x: c.at_ms, y: 0 }, { x: c.at_ms, y: ymax }],
					  borderColor: '#e53e3e', pointRadius: 0, borderWidth: 1 });
			chart(id, f.canvas, { type: 'line', data: { datasets: ds }, options: { parsing: false,
				scales: { x: axis('linear', 'emulated time, ms'), y: axis('linear', 'queued, kB') } } });
		}));

		/* background transfers: their completion times as a distribution */
		const bruns = runs.filter((r) => r.background && r.background.fct_quantiles_us &&
					  r.background.fct_quantiles_us.length);
		if (bruns.length) guard(grid, 'the background transfers (/runs/*/background)', () => {
			const id = 'run' + n + '-fct';
			const f = figure(grid, id, 'Background transfers: completion times', states,
					 bruns.map((r) => r.label + ': ' + r.background.done + ' of ' + r.background.started +
						   ' done, mean ' + fmt(r.background.fct_us.mean) + ' us, p99 ' +
						   fmt(r.background.fct_us.p99) + ' us, wait ' + fmt(r.background.wait_us.mean) +
						   ' us (M/G/1: ' + fmt(r.background.mg1_wait_us) + ' us)').join('; '));
			const ds = bruns.map((r, i) => {
				const q = r.background.fct_quantiles_us;
				return { label: r.label, data: q.map((v, k) => ({ x: v, y: 100 * k / (q.length - 1) })),
					 borderColor: color(i), pointRadius: 0, borderWidth: 2 };
			});
			chart(id, f.canvas, { type: 'line', data: { datasets: ds }, options: { parsing: false,
				scales: { x: axis(axisType(ds.flatMap((s) => s.data.map((p) => p.x))), 'completion time, us'),
					  y: axis('linear', 'transfers done within, %', { min: 0, max: 100 }) } } });
		});

		/* real time: how late frames left each port, the engine's lag, the ports' counts */
		const rtRuns = runs.filter((r) => r.real_time && Array.isArray(r.real_time.ports));
		if (rtRuns.length) guard(grid, 'the real-time ports (/runs/*/real_time)', () => {
			const lid = 'run' + n + '-late';
			const ports = rtRuns.flatMap((r) => r.real_time.ports.concat(r.real_time.peer_ports || [])
				.map((p) => ({ r: r, p: p, label: r.label + ' ' + p.name })));
			const qs = [['median', 'late_median_ns'], ['p99', 'late_p99_ns'], ['p99.9', 'late_p999_ns'],
				    ['max', 'late_max_ns']];
			const ds = qs.map(([name, k], i) => ({ label: name, backgroundColor: color(i),
				data: ports.map((x) => x.p[k] === null ? null : x.p[k] / 1e3) }));
			for (const r of rtRuns)
				if (r.real_time.event_lag && r.real_time.event_lag.events)
					ds.push({ label: 'engine lag p99, ' + r.label + ' (emulated x dilation)',
						  backgroundColor: '#e53e3e', data: ports.map((x) => x.r === r ?
						  r.real_time.event_lag.p99_ns * r.real_time.dilation / 1e3 : null) });
			const fl = figure(grid, lid, 'Real time: how late frames left the ports', states,
					  rtRuns.map((r) => 'Run ' + r.label + ' at dilation ' + fmt(r.real_time.dilation) +
						     (r.flags && r.flags.host_behind ? ', the host fell behind (see the ' +
						      'text report: raise run.dilation)' : '') + ': ' +
						     r.real_time.ports.map((p) => p.name + ' sent ' + p.frames_sent +
							 ', received ' + p.frames_received + (p.deferred_sends ?
							 ', ' + p.deferred_sends + ' sends waited' : '') +
							 (p.device_rx_dropped + p.device_tx_errors ? ', the device lost ' +
							  (p.device_rx_dropped + p.device_tx_errors) : '')).join('; ')).join('. ') +
					  '. Lateness: the real time a frame was handed to its port less its emulated ' +
					  'time\'s real time.');
			chart(lid, fl.canvas, { type: 'bar', data: { labels: ports.map((x) => x.label), datasets: ds },
				options: { scales: { y: axis(axisType(ds.flatMap((d) => d.data)), 'late, real us') } } });
		});

		/* drops, by element */
		guard(grid, 'the drops (/runs/*/elements)', () => {
			const did = 'run' + n + '-drops';
			const kinds = [...new Set(runs.flatMap((r) => r.elements.map((e) => e.kind)))];
			const total = runs.map((r) => r.elements.reduce((s, e) => s + e.drop, 0));
			const fd = figure(grid, did, 'Frames dropped, by kind of element', states,
					  total.every((t) => t === 0) ? 'No frame was dropped in any run.' :
					  runs.map((r, i) => r.label + ': ' + total[i]).join(', ') + ' frames dropped.');
			chart(did, fd.canvas, { type: 'bar', data: { labels: runs.map((r) => r.label), datasets: kinds.map((k, i) => ({
				label: k, backgroundColor: color(i),
				data: runs.map((r) => r.elements.filter((e) => e.kind === k).reduce((s, e) => s + e.drop, 0)) })) },
				options: { scales: { x: { stacked: true }, y: axis('linear', 'frames dropped', { stacked: true, beginAtZero: true }) } } });
		});

		/* how long frames waited in each WAN queue, the sync's beside the background's */
		const waits = runs.flatMap((r) => (r.elements || []).filter((e) => e.queue_wait &&
			(e.queue_wait.sync.frames + e.queue_wait.background.frames) > 0)
			.map((e) => ({ label: r.label + ' ' + e.name, w: e.queue_wait })));
		if (waits.length > 0)
			guard(grid, 'the WAN queues\' waits (/runs/*/elements/*/queue_wait)', () => {
				const wid = 'run' + n + '-wait';
				const cls = [['sync', 'sync'], ['background', 'background']];
				const ds = cls.flatMap(([k, name], i) => [
					{ label: name + ' mean', backgroundColor: color(2 * i),
					  data: waits.map((x) => x.w[k].mean_us) },
					{ label: name + ' p99', backgroundColor: color(2 * i + 1),
					  data: waits.map((x) => x.w[k].p99_us) }]);
				const fw = figure(grid, wid, 'Queueing delay in the WAN queues, by class', states,
						  waits.map((x) => x.label + ': sync ' + fmt(x.w.sync.mean_us) +
							    ' us mean, ' + fmt(x.w.sync.p99_us) + ' us p99 (' +
							    x.w.sync.frames + ' frames); background ' +
							    fmt(x.w.background.mean_us) + ' us mean (' +
							    x.w.background.frames + ' frames)').join('. ') +
						  '. A frame\'s wait: from its arrival at the queue to the start of ' +
						  'its serialisation.');
				chart(wid, fw.canvas, { type: 'bar', data: { labels: waits.map((x) => x.label), datasets: ds },
					options: { scales: { y: axis(axisType(ds.flatMap((d) => d.data)), 'wait, us') } } });
			});
	}

	/* ---- sweep -------------------------------------------------------------------- */

	function sweepSection(sec, d, n) {
		const states = statesOf(d.settings) + ' · settings of the first value, ' + d.key + ' swept' +
			(d.partial ? ' · PARTIAL (interrupted)' : '');
		const grid = el('div', { class: 'grid' });
		sec.append(grid);
		const unit = d.unit ? ', ' + d.unit : ' (fraction)';
		const xName = d.key + (d.key === 'background.load' ? ' (fraction of the WAN rate)' : unit);
		const points = objects(sec, d.points, '/points', 'points');
		d = Object.assign({}, d, { points: points });
		const runs = [...new Set(d.points.map((p) => p.run))];
		const cv = d.curves;
		const xs = [...new Set(d.points.map((p) => p.x))].sort((a, b) => a - b);
		const xType = cv ? (cv.log_x ? 'logarithmic' : 'linear') : axisType(xs);
		const id = 'sweep' + n;
		const f = figure(grid, id, 'Mean step time against ' + d.key, states,
				 'Points: the emulated mean step; band: its 95 % confidence interval; lines: the ' +
				 (cv ? cv.models + ', computed at ' + cv.x.length + ' values' : 'models at the swept values') +
				 '. The slider picks a swept value.');
		const ds = [];
		runs.forEach((run, i) => {
			const pts = d.points.filter((p) => p.run === run).sort((a, b) => a.x - b.x);
			ds.push({ label: run + ' emulated', data: pts.map((p) => ({ x: p.x, y: p.mean_ms })),
				  borderColor: color(i), backgroundColor: color(i), showLine: false, pointRadius: 4 });
			ds.push({ label: run + ' 95 % CI', data: pts.map((p) => ({ x: p.x, y: p.mean_ms + (p.ci95_ms || 0) })),
				  borderColor: 'transparent', backgroundColor: color(i) + '33', pointRadius: 0, fill: '+1' });
			ds.push({ label: run + ' 95 % CI low', data: pts.map((p) => ({ x: p.x, y: p.mean_ms - (p.ci95_ms || 0) })),
				  borderColor: 'transparent', pointRadius: 0, fill: false });
			const s = cv && cv.series.find((x) => x.run === run);
			if (s) {
				const keys = s.model_ms ? [['model_ms', 'model PS', [6, 4]], ['model_fifo_ms', 'model FIFO', [2, 3]]] :
					[['packet_ms', 'packet closed form', [6, 4]], ['fluid_ms', 'fluid', [2, 3]]];
				for (const [k, t, dash] of keys)
					ds.push({ label: run + ' ' + t, data: cv.x.map((x, j) => ({ x: x, y: s[k][j] }))
						  .filter((p) => p.y !== null), borderColor: color(i), borderDash: dash,
						  pointRadius: 0, borderWidth: 1.5 });
			}
		});
		const ys = finite(ds.flatMap((s) => s.data.map((p) => p.y)));
		const markerIdx = ds.length;
		ds.push({ label: 'slider', data: [], borderColor: '#e53e3e', pointRadius: 0, borderWidth: 1 });
		const ch = chart(id, f.canvas, { type: 'line', data: { datasets: ds }, options: { parsing: false,
			scales: { x: axis(xType, xName + (xType === 'logarithmic' ? ' (log)' : ''),
					  xType === 'linear' ? { min: Math.min(...xs), max: Math.max(...xs) } : {}),
				  y: axis(axisType(ys), 'mean step time, ms' + (axisType(ys) === 'logarithmic' ? ' (log)' : '')) },
			plugins: { legend: { labels: { filter: (it) => !it.text.endsWith('CI low') && it.text !== 'slider' } } } } });
		const table = el('table', { class: 'readout', id: id + '-readout' });
		/* the value as given ("1GB/s", "wire"), its number else */
		const shown = (x) => (d.points.find((p) => p.x === x) || {}).value || fmt(x, 4) + (d.unit ? ' ' + d.unit : '');
		slider(f.fig, id + '-value', d.key, xs, 0, shown, (i) => {
			ch.data.datasets[markerIdx].data = [{ x: xs[i], y: Math.min(...ys) }, { x: xs[i], y: Math.max(...ys) }];
			const pts = d.points.filter((p) => p.x === xs[i]);
			readout(table, ['run', 'mean ms', '95 % CI', 'model ms', 'status'],
				pts.map((p) => [p.run, fmt(p.mean_ms, 4), fmt(p.ci95_ms, 2), fmt(p.model_ms, 4), p.status]), -1);
			ch.update();
		});
		f.fig.append(table);
	}

	/* ---- validate ----------------------------------------------------------------- */

	function validateSection(sec, d, n) {
		const grid = el('div', { class: 'grid' });
		sec.append(grid);
		const states = 'capture ' + d.trace.file + ' (' + d.trace.format + ') · ' +
			(d.mode === 'syncemu' ? 'a syncemu trace: ' + (d.runs || []).length + ' run(s)' : (d.split || {}).how || d.mode);
		if (d.mode === 'bursts') {
			guard(grid, 'the bursts (/tables/bursts)', () => {
				const rows = d.tables.bursts.rows;
				const id = 'validate' + n + '-bursts';
				const f = figure(grid, id, 'Bursts of the capture against alpha-beta and the model', states,
						 'Each burst\'s first to last packet; alpha-beta: ' + fmt((d.model || {}).alpha_s * 1e3) +
						 ' ms + bytes / ' + si((d.model || {}).beta_Bps, 'B/s') + ' (' + ((d.model || {}).from || 'n/a') + ').');
				const ds = [['duration_ms', 'burst', []], ['alpha_beta_ms', 'alpha-beta', [6, 4]], ['model_sync_ms', 'model sync', [2, 3]]]
					.map(([k, t, dash], i) => ({ label: t, data: rows.map((r) => ({ x: r.burst, y: r[k] })).filter((p) => p.y !== null),
								      borderColor: color(i), backgroundColor: color(i), borderDash: dash,
								      pointRadius: i ? 0 : 3, borderWidth: 1.5 }));
				const ys = finite(ds.flatMap((x) => x.data.map((p) => p.y)));
				const markerIdx = ds.length;
				ds.push({ label: 'slider', data: [], borderColor: '#e53e3e', pointRadius: 0, borderWidth: 1 });
				const ch = chart(id, f.canvas, { type: 'line', data: { datasets: ds }, options: { parsing: false,
					scales: { x: axis('linear', 'burst', { ticks: { precision: 0 } }),
						  y: axis(axisType(ys), 'duration, ms', { beginAtZero: axisType(ys) === 'linear' }) },
					plugins: { legend: { labels: { filter: (it) => it.text !== 'slider' } } } } });
				const table = el('table', { class: 'readout', id: id + '-readout' });
				slider(f.fig, id + '-burst', 'burst', rows.map((r) => r.burst), 0, (b) => 'burst ' + b, (i) => {
					const r = rows[i];
					ch.data.datasets[markerIdx].data = [{ x: r.burst, y: Math.min(...ys) }, { x: r.burst, y: Math.max(...ys) }];
					readout(table, ['', 'value'], [['start', fmt(r.start_s, 6) + ' s'], ['duration', fmt(r.duration_ms, 4) + ' ms'],
						['bytes', String(r.bytes)], ['packets', String(r.packets)], ['alpha-beta', fmt(r.alpha_beta_ms, 4) + ' ms']], -1);
					ch.update();
				});
				f.fig.append(table);
			});
			return;
		}
		const steps = d.tables.steps.rows;
		if (d.mode !== 'streams') {
			guard(grid, 'the steps (/tables/steps)', () => {
				const id = 'validate' + n + '-steps';
				const f = figure(grid, id, 'Steps rebuilt from the capture against the models', states,
						 d.tables.steps.title + '. Largest error ' + fmt(d.max_error_pct) + ' %.');
				const ds = [['trace_ms', 'from the trace'], ['packet_model_ms', 'packet closed form'], ['fluid_ms', 'fluid model']]
					.map(([k, t], i) => ({ label: t, data: steps.map((s) => ({ x: s.step, y: s[k] })), borderColor: color(i),
							       borderDash: i ? [6, 4] : [], pointRadius: i ? 0 : 2, borderWidth: 1.5 }));
				chart(id, f.canvas, { type: 'line', data: { datasets: ds }, options: { parsing: false,
					scales: { x: axis('linear', 'step', { ticks: { precision: 0 } }), y: axis('linear', 'step time, ms') } } });
			});
			return;
		}
		guard(grid, 'the steps (/tables/steps, /summary)', () => {
			const sm = d.summary;
			const app = d.tables.app_steps ? d.tables.app_steps.rows : [];
			const id = 'validate' + n + '-steps';
			const f = figure(grid, id, 'The wire\'s steps against the application\'s and the model', states,
					 sm.text + (sm.rate_Bps ? ' Model at ' + si(sm.rate_Bps, 'B/s') + ' (' + sm.rate_from +
						    '): duplex ' + fmt(sm.duplex_ms) + ' ms, serialised ' + fmt(sm.serialised_ms) + ' ms.' : ''));
			const ds = [{ label: 'wire (first to last packet)', data: steps.map((s) => ({ x: s.step, y: s.duration_ns / 1e6 })),
				      borderColor: color(0), backgroundColor: color(0), pointRadius: 3, borderWidth: 1.5 }];
			if (app.length)
				ds.push({ label: 'application (--steps-csv)', data: app.map((a) => ({ x: a.wire_step, y: a.app_ns / 1e6 })),
					  borderColor: color(1), backgroundColor: color(1), pointRadius: 3, borderWidth: 1.5 });
			const dirs = [...new Set(steps.flatMap((s) => s.directions.map((x) => x.direction)))];
			dirs.forEach((dir, i) => ds.push({ label: dir, data: steps.map((s) => {
				const x = s.directions.find((y) => y.direction === dir);
				return { x: s.step, y: x ? x.duration_ns / 1e6 : null };
			}), borderColor: color(2 + i), borderDash: [3, 3], pointRadius: 2, borderWidth: 1 }));
			const sx = steps.map((s) => s.step);
			if (sm.duplex_ms !== null && sm.duplex_ms !== undefined)
				ds.push({ label: 'model: duplex', data: [{ x: Math.min(...sx), y: sm.duplex_ms }, { x: Math.max(...sx), y: sm.duplex_ms }],
					  borderColor: '#1d2330', borderDash: [8, 4], pointRadius: 0, borderWidth: 1.5 });
			if (sm.serialised_ms !== null && sm.serialised_ms !== undefined)
				ds.push({ label: 'model: serialised', data: [{ x: Math.min(...sx), y: sm.serialised_ms }, { x: Math.max(...sx), y: sm.serialised_ms }],
					  borderColor: '#718096', borderDash: [2, 3], pointRadius: 0, borderWidth: 1.5 });
			const ys = finite(ds.flatMap((s) => s.data.map((p) => p.y)));
			const markerIdx = ds.length;
			ds.push({ label: 'slider', data: [], borderColor: '#e53e3e', pointRadius: 0, borderWidth: 1 });
			const ch = chart(id, f.canvas, { type: 'line', data: { datasets: ds }, options: { parsing: false,
				scales: { x: axis('linear', 'step', { ticks: { precision: 0 } }), y: axis(axisType(ys), 'time, ms', { beginAtZero: axisType(ys) === 'linear' }) },
				plugins: { legend: { labels: { filter: (it) => it.text !== 'slider' } } } } });
			const table = el('table', { class: 'readout', id: id + '-readout' });
			slider(f.fig, id + '-step', 'step', sx, 0, (s) => 'step ' + s, (i) => {
				const s = steps[i];
				ch.data.datasets[markerIdx].data = [{ x: s.step, y: Math.min(...ys) }, { x: s.step, y: Math.max(...ys) }];
				const a = app.find((x) => x.wire_step === s.step);
				readout(table, ['', 'ms', 'bytes'], [['wire', fmt(s.duration_ns / 1e6, 4), String(s.bytes)]]
					.concat(a ? [['application', fmt(a.app_ns / 1e6, 4), '']] : [])
					.concat(s.directions.map((x) => [x.direction, fmt(x.duration_ns / 1e6, 4), String(x.bytes)])), -1);
				ch.update();
			});
			f.fig.append(table);
		});

		guard(grid, 'the overlap of the directions (/tables/steps)', () => {
			const sx = steps.map((s) => s.step);
			const oid = 'validate' + n + '-overlap';
			const fo = figure(grid, oid, 'Directions: both at once, one way, idle', states,
					  'Share of each step\'s span; over the capture ' + fmt(d.overlap_pct) + ' % overlapped.');
			chart(oid, fo.canvas, { type: 'bar', data: { labels: sx.map(String), datasets: [
				['overlap_pct', 'both directions'], ['one_way_pct', 'one way'], ['idle_pct', 'idle']].map(([k, t], i) => ({
				label: t, backgroundColor: color(i), data: steps.map((s) => s[k]) })) },
				options: { scales: { x: axis('category', 'step', { stacked: true }),
						     y: axis('linear', 'share of the step, %', { stacked: true, max: 100 }) } } });
		});
	}

	/* ---- the page ------------------------------------------------------------------ */

	const KINDS = { model: ['Model', modelSection], run: ['Run', runSection], sweep: ['Sweep', sweepSection],
			validate: ['Validate', validateSection] };

	function build() {
		const inputs = JSON.parse(document.getElementById('syncemu-data').textContent);
		const main = document.querySelector('main');
		const toc = document.querySelector('nav.toc');
		/* the user's own runs, sweeps and captures first, the deck's model after (each keeps
		 * its input's number in its ids) */
		const later = (k) => (k === 'model' ? 1 : 0);
		inputs.map((inp, n) => [inp, n]).sort((a, b) => later(a[0].kind) - later(b[0].kind) ||
			a[1] - b[1]).forEach(([inp, n]) => {
			const [name, draw] = KINDS[inp.kind];
			const sid = 'input' + n;
			const d = inp.json;
			const sc = d.scenario && typeof d.scenario === 'object' ? d.scenario :
				d.settings && typeof d.settings === 'object' ? d.settings : null;
			const sec = el('section', { class: 'input', id: sid, 'data-kind': inp.kind },
				       el('h2', {}, name + ': ' + inp.file),
				       el('p', { class: 'settings' }, (sc && sc.description ? sc.description + ' · ' : '') +
					  'syncemu ' + d.syncemu));
			main.append(sec);
			toc.append(el('a', { href: '#' + sid }, name + ' ' + inp.file));
			guard(sec, 'this input (' + inp.file + ')', () => draw(sec, d, n));
		});
		document.body.setAttribute('data-ready', Object.keys(charts).length);
		document.body.setAttribute('data-not-drawn', document.querySelectorAll('.not-drawn').length);
	}

	if (document.readyState === 'loading')
		document.addEventListener('DOMContentLoaded', build);
	else
		build();
})();
