/**
 * DCGM profiling fields as `dcgmi dmon` names them (short names), with the canonical component each
 * one fills. All are ratios 0–1 over the sampling interval (elapsed time basis).
 * Source: DCGM field ids 1001–1012 and 100/101/155/156 (see notes/power-modeling.md).
 */
import type { Component } from '../../vocab/kernel-sample.js';

export interface DcgmFieldInfo {
  fieldId: number;
  shortName: string;
  longName: string;
  /** Component filled (0–1), when the field is a utilization ratio. */
  component?: Component;
  /** What the field means when it is not a utilization. */
  meaning?: 'smClockMHz' | 'memClockMHz' | 'powerW' | 'totalEnergyMJ' | 'bytesPerSecond';
}

export const DCGM_FIELDS: readonly DcgmFieldInfo[] = [
  { fieldId: 1001, shortName: 'GRACT', longName: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE', component: 'gr_active' },
  { fieldId: 1002, shortName: 'SMACT', longName: 'DCGM_FI_PROF_SM_ACTIVE', component: 'sm_active' },
  { fieldId: 1003, shortName: 'SMOCC', longName: 'DCGM_FI_PROF_SM_OCCUPANCY', component: 'sm_occupancy' },
  { fieldId: 1004, shortName: 'TENSO', longName: 'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE', component: 'tensor_active' },
  { fieldId: 1005, shortName: 'DRAMA', longName: 'DCGM_FI_PROF_DRAM_ACTIVE', component: 'dram_active' },
  { fieldId: 1006, shortName: 'FP64A', longName: 'DCGM_FI_PROF_PIPE_FP64_ACTIVE', component: 'fp64_active' },
  { fieldId: 1007, shortName: 'FP32A', longName: 'DCGM_FI_PROF_PIPE_FP32_ACTIVE', component: 'fp32_active' },
  { fieldId: 1008, shortName: 'FP16A', longName: 'DCGM_FI_PROF_PIPE_FP16_ACTIVE', component: 'fp16_active' },
  { fieldId: 1009, shortName: 'PCITX', longName: 'DCGM_FI_PROF_PCIE_TX_BYTES', meaning: 'bytesPerSecond' },
  { fieldId: 1010, shortName: 'PCIRX', longName: 'DCGM_FI_PROF_PCIE_RX_BYTES', meaning: 'bytesPerSecond' },
  { fieldId: 1011, shortName: 'NVLTX', longName: 'DCGM_FI_PROF_NVLINK_TX_BYTES', meaning: 'bytesPerSecond' },
  { fieldId: 1012, shortName: 'NVLRX', longName: 'DCGM_FI_PROF_NVLINK_RX_BYTES', meaning: 'bytesPerSecond' },
  { fieldId: 100, shortName: 'SMCLK', longName: 'DCGM_FI_DEV_SM_CLOCK', meaning: 'smClockMHz' },
  { fieldId: 101, shortName: 'MMCLK', longName: 'DCGM_FI_DEV_MEM_CLOCK', meaning: 'memClockMHz' },
  { fieldId: 155, shortName: 'POWER', longName: 'DCGM_FI_DEV_POWER_USAGE', meaning: 'powerW' },
  { fieldId: 156, shortName: 'TOTEC', longName: 'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION', meaning: 'totalEnergyMJ' },
];

export const DCGM_BY_SHORT_NAME: ReadonlyMap<string, DcgmFieldInfo> = new Map(DCGM_FIELDS.map((f) => [f.shortName, f]));
