use acme_streams::{Countdown, Summer};
use reactive_streams::Publisher;

#[test]
fn a_summer_adds_up_a_countdown() {
    let (summer, total) = Summer::new(3);
    Countdown::new(10).subscribe(Box::new(summer));
    let total = total.lock().unwrap().clone();
    assert_eq!(
        (total.sum, total.count, total.outcome),
        (55, 10, Some(Ok(())))
    );
}

#[test]
fn a_scale_stage_multiplies_between_publisher_and_subscriber() {
    let stage = acme_streams::Scale::new(10);
    let (summer, total) = Summer::new(2);
    stage.subscribe(Box::new(summer));
    Countdown::new(4).subscribe(Box::new(stage.clone()));
    let total = total.lock().unwrap().clone();
    assert_eq!(
        (total.sum, total.count, total.outcome),
        (100, 4, Some(Ok(())))
    );
}
