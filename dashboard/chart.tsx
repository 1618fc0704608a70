import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { kes } from './format.ts';

/** Collections per hour of today (Nairobi), as bars: shillings collected in each hour. */
export function HourlyChart({ byHour }: { byHour: { hour: number; count: number; amount: { amount: number } }[] }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const data: uPlot.AlignedData = [byHour.map((h) => h.hour), byHour.map((h) => h.amount.amount)];

  useEffect(() => {
    if (!box.current) return;
    const bars = uPlot.paths.bars!({ size: [0.7, 40] });
    plot.current = new uPlot(
      {
        width: Math.max(240, box.current.clientWidth),
        height: 200,
        scales: { x: { time: false, range: [-0.5, 23.5] } },
        axes: [
          { values: (_u, ticks) => ticks.map((t) => `${String(t).padStart(2, '0')}h`), incrs: [1, 3, 6] },
          { values: (_u, ticks) => ticks.map((t) => t.toLocaleString('en-KE')), size: 70 },
        ],
        series: [
          { label: 'Hour', value: (_u, v) => (v == null ? '–' : `${String(v).padStart(2, '0')}:00`) },
          {
            label: 'Collected',
            paths: bars,
            points: { show: false },
            fill: 'rgba(29, 122, 90, 0.55)',
            stroke: '#1d7a5a',
            value: (_u, v) => (v == null ? '–' : kes(v)),
          },
        ],
      },
      data,
      box.current,
    );
    return () => plot.current?.destroy();
  }, []);

  useEffect(() => plot.current?.setData(data), [byHour]);

  return <div class="chart" ref={box} data-testid="chart" />;
}
