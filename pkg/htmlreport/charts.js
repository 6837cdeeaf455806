// Draws each figure of the report with uPlot from the data pkg/plots drew the static files from
// (the #figure-data JSON, htmlreport/interactive.go). A figure whose chart cannot be drawn keeps
// its static image: the image is removed only once the chart exists.
(() => {
  'use strict';
  const font = '12px "DejaVu Sans", "Liberation Sans", Arial, sans-serif';
  const labelFont = 'bold ' + font;
  // fmt prints a value with up to four significant digits, whole numbers past 1000 in full.
  const fmt = v => v == null || !Number.isFinite(v) ? '–'
    : Math.abs(v) >= 1000 ? Math.round(v).toLocaleString('en') : String(+v.toPrecision(4));
  const withUnit = (s, unit) => unit ? s + ' ' + unit : s;

  // align puts every series on one sorted X array, null where a series has no point there.
  function align(f) {
    const xs = f.kind === 'bars' ? f.categories.map((_, i) => i)
      : [...new Set([...f.series, {points: f.ceiling || []}].flatMap(s => s.points.map(p => p.x)))].sort((a, b) => a - b);
    const at = new Map(xs.map((x, i) => [x, i]));
    const column = points => {
      const col = xs.map(() => null);
      for (const p of points) col[at.get(p.x)] = p;
      return col;
    };
    return {xs, columns: f.series.map(s => column(s.points)), ceiling: f.ceiling ? column(f.ceiling) : null};
  }

  // errorBars draws each visible point's ± one standard deviation, as the static figure does.
  function errorBars(u, f, columns) {
    const ctx = u.ctx;
    ctx.save();
    ctx.beginPath();
    ctx.rect(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height);
    ctx.clip();
    const cap = 4 * devicePixelRatio;
    columns.forEach((col, i) => {
      if (!u.series[i + 1].show) return;
      ctx.strokeStyle = f.series[i].color;
      ctx.lineWidth = devicePixelRatio;
      ctx.beginPath();
      col.forEach(p => {
        if (!p || !p.err) return;
        const x = u.valToPos(p.x, 'x', true);
        const lo = u.valToPos(f.y.log ? Math.max(p.y - p.err, f.y.min) : p.y - p.err, 'y', true);
        const hi = u.valToPos(p.y + p.err, 'y', true);
        ctx.moveTo(x, lo); ctx.lineTo(x, hi);
        ctx.moveTo(x - cap, lo); ctx.lineTo(x + cap, lo);
        ctx.moveTo(x - cap, hi); ctx.lineTo(x + cap, hi);
      });
      ctx.stroke();
    });
    ctx.restore();
  }

  function options(f, data, width) {
    const ticks = new Map((f.x.ticks || []).map(t => [t.value, t.label]));
    const xText = v => f.kind === 'bars' ? (f.categories[v] ?? '–') : ticks.get(v) ?? withUnit(fmt(v), f.x.unit);
    const hover = col => (u, v, si, di) => {
      const p = di == null ? null : col[di];
      if (!p) return '–';
      const err = p.err ? ' ± ' + fmt(p.err) : '';
      return withUnit(fmt(p.y) + err, f.y.unit) + (p.cell != null ? ' · cell ' + p.cell : '');
    };
    const series = [{label: f.x.title, value: (u, v) => v == null ? '–' : xText(v)}];
    f.series.forEach((s, i) => series.push(f.kind === 'bars'
      ? {label: s.label, stroke: s.color, fill: s.color + 'cc', width: 0, points: {show: false},
         paths: uPlot.paths.bars({size: [0.6, 60]}), value: hover(data.columns[i])}
      : {label: s.label, stroke: s.color, width: 2, dash: s.dashed ? [8, 4] : undefined, spanGaps: true,
         points: {show: true, size: 7, stroke: s.color, fill: '#fff'}, value: hover(data.columns[i])}));
    if (data.ceiling) {
      series.push({label: 'ceiling', stroke: f.ceilingColor, width: 1.5, dash: [6, 3], spanGaps: true,
        points: {show: false}, value: hover(data.ceiling)});
    }
    const xAxis = {label: f.x.title, font, labelFont, stroke: '#333', grid: {stroke: '#e4e4e4'}};
    if (f.kind === 'bars') {
      xAxis.splits = () => f.categories.map((_, i) => i);
      xAxis.values = (u, splits) => splits.map(v => f.categories[v]);
      xAxis.rotate = -20;
      xAxis.size = 90;
    } else if (ticks.size) {
      xAxis.splits = () => [...ticks.keys()];
      xAxis.values = (u, splits) => splits.map(v => ticks.get(v) ?? '');
    }
    return {
      title: f.title, width, height: Math.max(300, Math.min(460, Math.round(width * 0.5))),
      scales: {
        x: {time: false, distr: f.x.log ? 3 : 1, log: 2, range: [f.x.min, f.x.max]},
        y: {distr: f.y.log ? 3 : 1, log: 10, range: [f.y.min, f.y.max]},
      },
      axes: [xAxis, {label: f.y.title, font, labelFont, stroke: '#333', grid: {stroke: '#e4e4e4'}, size: 60}],
      series,
      legend: {live: true},
      cursor: {points: {size: 9}, drag: {x: false, y: false}},
      hooks: {
        draw: [u => errorBars(u, f, data.columns)],
        init: [u => {
          const legend = u.root.querySelector('.u-legend');
          const title = document.createElement('caption');
          title.className = 'legend-title';
          title.textContent = f.legend;
          legend.prepend(title);
        }],
      },
    };
  }

  function draw(f) {
    const box = document.getElementById('chart-' + f.name);
    if (!box) return;
    const data = align(f);
    const ys = data.columns.map(col => col.map(p => p && p.y));
    if (data.ceiling) ys.push(data.ceiling.map(p => p && p.y));
    const fallback = box.querySelector('img');
    const u = new uPlot(options(f, data, box.clientWidth || 800), [data.xs, ...ys], box);
    if (fallback) fallback.remove();
    addEventListener('resize', () => {
      const width = box.clientWidth || 800;
      u.setSize({width, height: Math.max(300, Math.min(460, Math.round(width * 0.5)))});
    });
  }

  const figures = JSON.parse(document.getElementById('figure-data').textContent);
  for (const f of figures) {
    try {
      draw(f);
    } catch (e) {
      console.error('figure ' + f.name + ': ' + e); // its static image stays
    }
  }
})();
