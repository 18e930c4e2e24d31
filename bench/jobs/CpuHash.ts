// W6's job: about 2 ms of CPU on a worker thread (a hash chain whose length the bench calibrated
// at the start of the run and put in the args). It never touches Redis.
import { hashChain } from '../cpu-work';

export function perform(index: number, iterations: number): void {
  hashChain(iterations);
}
