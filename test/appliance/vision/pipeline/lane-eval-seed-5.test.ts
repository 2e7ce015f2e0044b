import { describeLaneEval } from './lane-eval.ts';

describeLaneEval(5);
