/**
 * The camera registry: the store's cameras (vision_cameras, local only), their zones, their live
 * figures as the pipelines report them (in memory), and the camera, drive-thru and edge settings
 * (appliance/vision/settings) with their change hook for the pipeline runtime. Served under
 * /api/vision (the camera list) and /v1/vision.
 */

export { cameraRecord, type VisionCamera } from './camera.ts';
export type { CameraChangeListener } from './changes.ts';
export { visionApiRoutes, visionRoutes } from './routes.ts';
export {
  CAMERA_TYPES,
  type Camera,
  type CameraStatus,
  type CameraType,
  type Zone,
} from './schemas.ts';
export {
  type CameraStatusReport,
  createVisionRegistry,
  type VisionRegistry,
  type VisionRegistryDeps,
} from './service.ts';
