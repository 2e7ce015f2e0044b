/**
 * A camera's latest frame, refreshed about once a second while the screen is visible, with the
 * detections of `/live` drawn over it. The frame is fetched with the session's token (an <img>
 * cannot send it) and shown from a blob URL, released when the next one arrives.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../session.ts';
import type { LiveDetections } from '../../types.ts';

const REFRESH_MS = 1000;

export function CameraThumb(props: { cameraId: string; name: string; width?: number }) {
  const [src, setSrc] = useState<string>();
  const [live, setLive] = useState<LiveDetections>();
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let url: string | undefined;
    let busy = false;
    let active = true;
    const id = encodeURIComponent(props.cameraId);
    const tick = async () => {
      if (busy || document.hidden) return;
      busy = true;
      try {
        const frame = await api.blob(`/v1/vision/cameras/${id}/frame.jpg?width=${props.width ?? 480}`);
        // The boxes of that very frame (X-Frame-Seq), so they sit on what is shown.
        const seq = frame.headers.get('x-frame-seq');
        const detections = await api
          .get<LiveDetections>(`/v1/vision/cameras/${id}/live${seq ? `?seq=${seq}` : ''}`)
          .catch(() => undefined);
        if (!active) return;
        const next = URL.createObjectURL(frame.blob);
        if (url) URL.revokeObjectURL(url);
        url = next;
        setSrc(next);
        setLive(detections);
        setFailed(false);
      } catch {
        if (active) setFailed(true);
      } finally {
        busy = false;
      }
    };
    void tick();
    const timer = setInterval(tick, REFRESH_MS);
    return () => {
      active = false;
      clearInterval(timer);
      if (url) URL.revokeObjectURL(url);
    };
  }, [props.cameraId, props.width]);

  return (
    <figure class="camera-thumb" data-testid="camera-thumb" data-camera-id={props.cameraId}>
      <div class="thumb-frame">
        {src ? <img src={src} alt={`Latest frame from ${props.name}`} /> : <div class="thumb-empty" />}
        {live && (
          <svg class="thumb-boxes" viewBox="0 0 1 1" preserveAspectRatio="none" aria-hidden="true">
            {live.detections.map((d, i) => {
              const [x1, y1, x2, y2] = d.box;
              return (
                <rect
                  key={i}
                  x={x1}
                  y={y1}
                  width={Math.max(0, x2 - x1)}
                  height={Math.max(0, y2 - y1)}
                  class={`box box-${d.class}`}
                  vector-effect="non-scaling-stroke"
                />
              );
            })}
          </svg>
        )}
        {failed && <div class="thumb-failed">No picture</div>}
      </div>
      <figcaption>
        {props.name}
        {live && <span class="muted"> · {live.detections.length} seen</span>}
      </figcaption>
    </figure>
  );
}
