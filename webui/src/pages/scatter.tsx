// A small SVG scatter plot (a metric against one hyperparameter).
import { num } from "../format";

export function Scatter(props: { title: string; points: { x: number; y: number; label: string }[]; yLabel: string }) {
  const W = 280;
  const H = 200;
  const pts = props.points.filter((p) => typeof p.x === "number" && typeof p.y === "number");
  const xs = pts.map((p) => p.x);
  const ys = pts.map((p) => p.y);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  const sx = (v: number) => 40 + (W - 50) * (x1 === x0 ? 0.5 : (v - x0) / (x1 - x0));
  const sy = (v: number) => 10 + (H - 40) * (y1 === y0 ? 0.5 : 1 - (v - y0) / (y1 - y0));
  return (
    <figure class="scatter">
      <svg width={W} height={H}>
        <line x1={40} x2={W - 10} y1={H - 30} y2={H - 30} stroke="#888" />
        <line x1={40} x2={40} y1={10} y2={H - 30} stroke="#888" />
        {pts.map((p) => (
          <circle cx={sx(p.x)} cy={sy(p.y)} r={4} fill="#1f77b4">
            <title>
              {p.label}: {props.title} {num(p.x)}, {props.yLabel} {num(p.y)}
            </title>
          </circle>
        ))}
        <text x={40} y={H - 14} font-size="10" fill="currentColor">
          {num(x0, 3)}
        </text>
        <text x={W - 10} y={H - 14} font-size="10" text-anchor="end" fill="currentColor">
          {num(x1, 3)}
        </text>
        <text x={2} y={16} font-size="10" fill="currentColor">
          {num(y1, 3)}
        </text>
        <text x={2} y={H - 32} font-size="10" fill="currentColor">
          {num(y0, 3)}
        </text>
      </svg>
      <figcaption>{props.title}</figcaption>
    </figure>
  );
}
