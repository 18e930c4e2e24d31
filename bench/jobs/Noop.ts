// The no-op job of W1, W2 and W4: whatever a job costs here is nexq's cost.
export function perform(): void {}
